import { pause } from '../../shared/async.utils.js';
import type { OwnMember } from './confluent-admin.js';

/** How long a join waits for the admin to list its member before the consumer crashes. */
export const FIND_MEMBER_MS = 10_000;

/**
 * A consumer's own member, asked of the admin (DescribeGroups) until the coordinator lists the
 * consumer's client id: the client reports no member id. Undefined once `stopped()`; throws when
 * the coordinator has not listed it within FIND_MEMBER_MS.
 */
export async function findOwnMember(
  ask: () => Promise<OwnMember | undefined>,
  groupId: string,
  stopped: () => boolean,
): Promise<OwnMember | undefined> {
  const until = Date.now() + FIND_MEMBER_MS;
  for (let n = 0; Date.now() < until && !stopped(); n++) {
    const found = await ask().catch(() => undefined);
    if (found) return found;
    await pause(Math.min(20 * 2 ** n, 500));
  }
  if (stopped()) return undefined;
  throw new Error(
    `the coordinator of ${groupId} did not list this member within ${FIND_MEMBER_MS} ms`,
  );
}
