import { decodeMemberInfo } from '../core/features/roster/member-info.js';
import type { PoolGroup } from './pool-groups.js';

/** One live instance of the pool. */
export interface RosterEntry {
  groupId: string;
  id: number;
  memberId: string;
  clientId: string;
  host: string;
  /** From the member's own info (its user data), else from its heartbeats when one was seen. */
  instance: string | undefined;
}

/**
 * The live instances, derived from the pool: a live instance is the only member of its own
 * group, so every group with exactly one member is one instance. Groups with several members
 * (a contest in progress, or a foreign consumer) are left out; `pool` shows them.
 */
export function deriveRoster(
  groups: readonly PoolGroup[],
  instances: ReadonlyMap<string, string>,
): RosterEntry[] {
  return groups
    .filter((g) => g.members.length === 1)
    .map((g) => ({
      groupId: g.groupId,
      id: g.id,
      memberId: g.members[0]!.memberId,
      clientId: g.members[0]!.clientId,
      host: g.members[0]!.clientHost,
      instance: decodeMemberInfo(g.members[0]!.userData)?.id ?? instances.get(g.groupId),
    }));
}
