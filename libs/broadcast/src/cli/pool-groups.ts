import type {
  OperatorGroup,
  OperatorKafkaPort,
} from '../interfaces/broadcast-operator.interface.js';

/** A consumer group of the pool: `<prefix><base>-<id>`. */
export interface PoolGroup extends OperatorGroup {
  base: string;
  id: number;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The pool id of `groupId` for one of `bases`, or undefined when it is not a pool group. */
export function parsePoolGroup(
  groupId: string,
  prefix: string,
  bases: readonly string[],
): { base: string; id: number } | undefined {
  for (const base of bases) {
    const match = new RegExp(`^${escape(prefix + base)}-(\\d+)$`).exec(groupId);
    if (match) return { base, id: Number(match[1]) };
  }
  return undefined;
}

/** Every existing group of the pool, described, ordered by base and id. */
export async function listPoolGroups(
  kafka: OperatorKafkaPort,
  prefix: string,
  bases: readonly string[],
): Promise<PoolGroup[]> {
  const named = (await kafka.listGroupIds()).flatMap((groupId) => {
    const parsed = parsePoolGroup(groupId, prefix, bases);
    return parsed ? [{ groupId, ...parsed }] : [];
  });
  const described = new Map(
    (await kafka.describeGroups(named.map((g) => g.groupId))).map((g) => [g.groupId, g]),
  );
  return named
    .map((g) => ({ ...g, state: 'Dead', members: [], ...described.get(g.groupId) }))
    .sort((a, b) => a.base.localeCompare(b.base) || a.id - b.id);
}
