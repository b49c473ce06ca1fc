import type { Admin } from '@platformatic/kafka';
import type { LiveGroupMember } from '../../interfaces/broadcast-roster.interface.js';
import {
  type ConsumerGroupDescription,
  describeConsumerGroups,
} from './platformatic-consumer-group-describe.js';
import type { PlatformaticCoordinators } from './platformatic-coordinators.js';
import { brokerState } from './platformatic-group-state.js';
import type { PlatformaticKnownLeaders } from './platformatic-known-leaders.js';

const POOL_GROUP = /-\d+$/;

/**
 * The KIP-848 pool groups the previous look described: the next look describes them while its
 * listing runs (see poolMembers).
 */
export class PoolGroupsSeen {
  kip848: readonly string[] = [];
}

/**
 * Members of the pool groups named `<groupPrefix>…-<n>` (the roster), of both protocols: classic
 * groups through DescribeGroups (the member user data), KIP-848 groups (listed when `kip848`)
 * through ConsumerGroupDescribe (the member info this adapter sends as the rack id). The KIP-848
 * groups of the previous look (`seen`) are described while the listing runs (one round trip
 * instead of two when the pool did not change), those the listing adds after it; a group
 * described that the listing no longer shows is left out. So every group listed is described
 * after the call began, as when every describe followed the listing.
 */
export async function poolMembers(
  admin: Admin,
  groupPrefix: string,
  kip848: boolean,
  coordinators: PlatformaticCoordinators,
  known?: PlatformaticKnownLeaders,
  seen = new PoolGroupsSeen(),
): Promise<LiveGroupMember[]> {
  const early = kip848 ? seen.kip848 : [];
  const [listed, earlyDescribed] = await Promise.all([
    listGroups(admin, kip848, known),
    early.length > 0
      ? describeConsumerGroups(admin, early, coordinators)
      : new Map<string, ConsumerGroupDescription>(),
  ]);
  const pool = [...listed.values()]
    .filter((g) => g.id.startsWith(groupPrefix) && POOL_GROUP.test(g.id))
    .filter((g) => g.groupType === 'consumer' || g.protocolType === 'consumer');
  const classic = pool.filter((g) => g.groupType !== 'consumer').map((g) => g.id);
  const kip848Groups = pool.filter((g) => g.groupType === 'consumer').map((g) => g.id);
  seen.kip848 = kip848Groups;
  const earlyIds = new Set(early);
  // One ConsumerGroupDescribe per coordinator for all its groups, not one per group in turn.
  const [classicDescribed, lateDescribed] = await Promise.all([
    classic.length > 0 ? admin.describeGroups({ groups: classic }) : undefined,
    describeConsumerGroups(
      admin,
      kip848Groups.filter((id) => !earlyIds.has(id)),
      coordinators,
    ),
  ]);
  const members: LiveGroupMember[] = [];
  for (const group of classicDescribed?.values() ?? []) {
    for (const member of group.members.values()) {
      const metadata = member.metadata;
      const userData = metadata?.metadata;
      members.push({
        groupId: group.id,
        memberId: member.id,
        topics: metadata?.topics ?? [],
        userData: userData?.length ? Buffer.from(userData).toString('utf8') : undefined,
      });
    }
  }
  // KIP-848 members have no user data: this adapter sends the member info as their rack id.
  for (const groupId of kip848Groups) {
    const group = earlyDescribed.get(groupId) ?? lateDescribed.get(groupId);
    if (group?.kind !== 'consumer') continue;
    for (const m of group.members)
      members.push({
        groupId,
        memberId: m.memberId,
        topics: m.subscribedTopicNames,
        userData: m.rackId ?? undefined,
      });
  }
  return members;
}

/**
 * The groups named `<groupPrefix>…` that have members, from one ListGroups (one request per
 * broker): its group states tell empty groups apart, of both protocols (KIP-848 groups listed
 * when `kip848`).
 */
export async function occupiedPoolGroups(
  admin: Admin,
  groupPrefix: string,
  kip848: boolean,
  known?: PlatformaticKnownLeaders,
): Promise<string[]> {
  const listed = await listGroups(admin, kip848, known);
  return [...listed.values()]
    .filter((g) => g.id.startsWith(groupPrefix))
    .filter((g) => g.groupType === 'consumer' || g.protocolType === 'consumer')
    .filter((g) => !EMPTY_STATES.has(brokerState(g.state)))
    .map((g) => g.id);
}

const EMPTY_STATES = new Set(['Empty', 'Dead']);

/**
 * ListGroups of both protocols (KIP-848 groups when `kip848`): on the brokers the metadata at
 * hand names when `known` can (no Metadata request), else (or when that fails) through the
 * client's own call.
 */
async function listGroups(admin: Admin, kip848: boolean, known?: PlatformaticKnownLeaders) {
  const types = kip848 ? ['classic', 'consumer'] : ['classic'];
  // A failure may be stale metadata: the client's own call refreshes it, and retries.
  const listed = await known?.listGroups(types).catch(() => undefined);
  return listed ?? (await admin.listGroups({ types }));
}
