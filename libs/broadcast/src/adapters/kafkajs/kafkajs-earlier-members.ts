import { withTimeout } from '../../shared/async.utils.js';
import { chain } from './kafkajs-error-chain.js';

/** How long a join waits for the LeaveGroups of earlier members before it goes on regardless. */
const LEAVE_BOUND_MS = 5_000;
/** Ids kept per group: a crash leaves one member behind, a join sequence hands out two. */
const KEPT_IDS = 8;

/** The coordinator call the leave needs (a kafkajs 2.2.4 Broker's; LeaveGroup v3 on Kafka 4). */
export interface LeavingBroker {
  leaveGroup(request: { groupId: string; memberId: string }): Promise<unknown>;
}

/**
 * The member ids the broker handed out to this port's consumers, per group, until a LeaveGroup
 * removed them (or the broker said it no longer holds them).
 *
 * Why: when a consumer is lost (it crashed during a Kafka outage, or its stop could not reach
 * the broker), the engine joins the same group again with a new consumer. A classic coordinator
 * still holds the old member until its session ends (loaded back from `__consumer_offsets` after
 * a broker restart, with a fresh session timer), and the new join waits for it: the rebalance
 * completes only when every known member joined again or left. The old member's id is known
 * here, so the new consumer removes it with a LeaveGroup before its JoinGroup instead of waiting
 * out the session. Only ids this port's own consumers were handed are ever left: never another
 * instance's member.
 *
 * A consumer's own completed member is not forgotten when kafkajs's disconnect() returns, since
 * that disconnect swallows a leave the broker never received; a LeaveGroup for a member already
 * gone costs one request answered UNKNOWN_MEMBER_ID.
 */
export class KafkajsEarlierMembers {
  private readonly byGroup = new Map<string, string[]>();

  /** The broker handed `memberId` out to a consumer of `groupId`. */
  handedOut(groupId: string, memberId: string): void {
    const ids = this.byGroup.get(groupId) ?? [];
    if (ids.includes(memberId)) return;
    ids.push(memberId);
    if (ids.length > KEPT_IDS) ids.shift();
    this.byGroup.set(groupId, ids);
  }

  /** The broker holds `memberId` no more (it left, or was unknown to the coordinator). */
  gone(groupId: string, memberId: string): void {
    const ids = (this.byGroup.get(groupId) ?? []).filter((id) => id !== memberId);
    if (ids.length > 0) this.byGroup.set(groupId, ids);
    else this.byGroup.delete(groupId);
  }

  /** The ids handed out to earlier consumers of `groupId`, as a new consumer of it is made. */
  of(groupId: string): string[] {
    return [...(this.byGroup.get(groupId) ?? [])];
  }
}

/**
 * Sends a LeaveGroup for each of `memberIds` to `coordinator`, bounded by LEAVE_BOUND_MS; returns
 * the ids the broker no longer holds (left, or UNKNOWN_MEMBER_ID). An id whose leave failed
 * otherwise (the coordinator is loading or moved, the connection broke) is not returned: the
 * next join tries it again.
 */
export async function leaveEarlierMembers(
  coordinator: LeavingBroker,
  groupId: string,
  memberIds: readonly string[],
): Promise<string[]> {
  const gone: string[] = [];
  await withTimeout(
    Promise.all(
      memberIds.map((memberId) =>
        coordinator.leaveGroup({ groupId, memberId }).then(
          () => void gone.push(memberId),
          (error: unknown) => {
            if (isUnknownMember(error)) gone.push(memberId);
          },
        ),
      ),
    ),
    LEAVE_BOUND_MS,
    `leave of earlier members of ${groupId}`,
  ).catch(() => undefined);
  return gone;
}

function isUnknownMember(error: unknown): boolean {
  return [...chain(error)].some((e) => e.type === 'UNKNOWN_MEMBER_ID');
}
