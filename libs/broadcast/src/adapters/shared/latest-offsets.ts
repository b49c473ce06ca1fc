import type { TopicOffsets } from '../../interfaces/kafka-port.interface.js';
import { backoffDelay, pause } from '../../shared/async.utils.js';
import type { ClientErrors } from './client-errors.js';

/** Snapshot attempts before the claim of a group gives up on this one. */
export const LATEST_OFFSETS_ATTEMPTS = 5;

/**
 * The start snapshot's high watermarks (the admin's `latestOffsets`), read by `read` (`attempt`
 * counts from 0: a client may refresh what it knows before a retry). A lost connection or a
 * leader moving is retried here, a few times, rather than costing the claim of a group; a refusal
 * names the ACL at once.
 */
export async function latestOffsetsRetrying(
  read: (attempt: number) => Promise<TopicOffsets>,
  errors: Pick<ClientErrors, 'fatal' | 'transient'>,
  topics: readonly string[],
): Promise<TopicOffsets> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read(attempt);
    } catch (error) {
      const operation = { operation: 'read latest offsets', acl: { topic: 'DESCRIBE' } };
      const denied = errors.fatal(error, { ...operation, topics });
      if (denied) throw denied;
      if (attempt >= LATEST_OFFSETS_ATTEMPTS - 1 || !errors.transient(error)) throw error;
      await pause(backoffDelay(attempt, 100, 1_000));
    }
  }
}
