import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import type { KafkaAdminPort } from '../../interfaces/kafka-port.interface.js';
import { errorMessage, withTimeout } from '../../shared/async.utils.js';

/** Longest a stop waits for the group it left to be deleted: a broker that is away costs this. */
export const LEFT_GROUP_DELETE_MS = 2_000;

/**
 * Deletes the group a stopping instance has just left, while its lock (if any) is still held.
 *
 * Why: a stopped instance's group used to stay on the broker, empty, until the broker's own
 * cleanup, so the pool counted every id ever used; lock-free ids are drawn at random over all of
 * `maxGroups`, so after a few deploys nearly every id had a group. Deleted at stop, the pool holds
 * the groups of live instances and of crashed ones only. Safe against a newcomer taking the same
 * id meanwhile: Kafka refuses to delete a group with a member, and a newcomer deletes the group
 * itself before it joins and reads from positions of its own, so a late delete changes nothing
 * for it. A failure or a slow broker leaves the group as before (the next claimant deletes it).
 */
export async function deleteLeftGroup(
  admin: KafkaAdminPort,
  groupId: string,
  logger: BroadcastLogger,
): Promise<void> {
  const bound = new AbortController();
  try {
    const outcome = await withTimeout(
      admin.deleteGroup(groupId, Date.now() + LEFT_GROUP_DELETE_MS, bound.signal),
      LEFT_GROUP_DELETE_MS,
      `deleting ${groupId}`,
    );
    if (outcome === 'non-empty')
      logger.debug?.(`Left ${groupId} with members in it: not deleted`, { groupId });
  } catch (error) {
    logger.debug?.(`Could not delete ${groupId} after leaving it: ${errorMessage(error)}`, {
      groupId,
      reason: errorMessage(error),
    });
  } finally {
    bound.abort();
  }
}
