import type { OperatorGroup } from '../interfaces/broadcast-operator.interface.js';
import type { PoolGroup } from './pool-groups.js';
import { stateUnknown, UNKNOWN_STATE_HINT } from './unknown-state.js';

export interface CleanupItem {
  groupId: string;
  state: string;
  members: number;
  reason: string;
  delete: boolean;
}

/**
 * What `cleanup` deletes. Per locked base, the high-water mark is the highest id with a member:
 * empty groups above it are leftovers of a larger fleet (ids at or below it are reused by the
 * lowest-first allocation). A lock-free base draws its ids over the whole pool, so there every
 * empty group is a leftover. Every group of a retired prefix goes too. A group with a member
 * is never deleted, nor one the client cannot describe (its state unknown: it may have members,
 * so it also counts for the high-water mark).
 */
export function planCleanup(
  pool: readonly PoolGroup[],
  retired: readonly OperatorGroup[],
  lockFreeBases: readonly string[] = [],
): CleanupItem[] {
  const highWater = new Map<string, number>();
  for (const g of pool)
    if (g.members.length > 0 || stateUnknown(g))
      highWater.set(g.base, Math.max(highWater.get(g.base) ?? -1, g.id));
  const unknown = (g: OperatorGroup): CleanupItem => ({
    groupId: g.groupId,
    state: g.state,
    members: g.members.length,
    reason: `state unknown: ${UNKNOWN_STATE_HINT}`,
    delete: false,
  });
  const items: CleanupItem[] = pool.map((g) => {
    if (stateUnknown(g)) return unknown(g);
    const empty = g.members.length === 0;
    const item = { groupId: g.groupId, state: g.state, members: g.members.length };
    if (!empty) return { ...item, reason: 'has members', delete: false };
    if (lockFreeBases.includes(g.base))
      return { ...item, reason: 'empty lock-free pool group', delete: true };
    const mark = highWater.get(g.base) ?? -1;
    const above = g.id > mark;
    return {
      ...item,
      reason: above ? `above high-water mark ${mark}` : `at or below high-water mark ${mark}`,
      delete: above,
    };
  });
  const seen = new Set(items.map((i) => i.groupId));
  for (const g of retired) {
    if (seen.has(g.groupId)) continue;
    if (stateUnknown(g)) {
      items.push(unknown(g));
      continue;
    }
    items.push({
      groupId: g.groupId,
      state: g.state,
      members: g.members.length,
      reason: g.members.length > 0 ? 'retired prefix, has members' : 'retired prefix',
      delete: g.members.length === 0,
    });
  }
  return items;
}
