import type { Admin } from '@platformatic/kafka';
import type { DeleteGroupOutcome } from '../../interfaces/kafka-port.interface.js';
import { backoffDelay, pause } from '../../shared/async.utils.js';
import { chainOf, hasProtocolError, type PlatformaticErrors } from './platformatic-errors.js';
import type { KafkaOperation } from '../shared/adapter-types.js';

// PlatformaticAdmin's DeleteGroups: the allocator deletes a candidate group before it joins, so
// the group starts fresh. Kept apart because this call has its own error handling: a non-empty
// or missing group is an answer, a refusal names the ACL that the call really needed, and
// everything else is retried until the allocation's deadline.

/** Deletes `groupId`; retries transient failures until `deadline` or `signal` aborts. */
export async function deleteGroupRetrying(
  admin: Admin,
  errors: PlatformaticErrors,
  groupId: string,
  deadline: number,
  signal?: AbortSignal,
): Promise<DeleteGroupOutcome> {
  for (let attempt = 0; ; attempt++) {
    signal?.throwIfAborted();
    try {
      await admin.deleteGroups({ groups: [groupId] });
      return 'deleted';
    } catch (error) {
      if (hasProtocolError(error, 'NON_EMPTY_GROUP')) return 'non-empty';
      if (hasProtocolError(error, 'GROUP_ID_NOT_FOUND')) return 'not-found';
      const denied = errors.fatal(error, deleting(error, groupId));
      if (denied) throw denied;
      // Everything else (coordinator moving or loading, timeouts, lost connections) is transient.
      const delay = backoffDelay(attempt);
      if (Date.now() + delay >= deadline || signal?.aborted) throw error;
      await pause(delay, signal);
    }
  }
}

/**
 * What a refused DeleteGroups call was doing. The client finds the group's coordinator first
 * (clients/admin/admin.js:683-685 in 2.12.1, 669 in 1.35; 2.12.1 wraps a failed FindCoordinator
 * in a MultipleErrors, whose chain still holds it); without any ACL on the group the broker
 * refuses that FindCoordinator, which needs DESCRIBE, not DELETE: named as kafkajs's adapter
 * names it.
 */
function deleting(error: unknown, groupId: string): KafkaOperation {
  const findingCoordinator = [...chainOf(error)].some((e) =>
    /FindCoordinator/.test(e.message ?? ''),
  );
  return findingCoordinator
    ? {
        operation: 'delete consumer group (finding its coordinator)',
        acl: { group: 'DESCRIBE' },
        groupId,
      }
    : { operation: 'delete consumer group', acl: { group: 'DELETE' }, groupId };
}
