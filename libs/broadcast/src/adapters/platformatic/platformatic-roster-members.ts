import type { Admin } from '@platformatic/kafka';
import type { LiveGroupMember } from '../../interfaces/broadcast-roster.interface.js';
import { describeConsumerGroups } from './platformatic-consumer-group-describe.js';
import type { PlatformaticCoordinators } from './platformatic-coordinators.js';
import { brokerState } from './platformatic-group-state.js';
import type { PlatformaticKnownLeaders } from './platformatic-known-leaders.js';

const POOL_GROUP = /-\d+$/;

/**
 * Members of the pool groups named `<groupPrefix>…-<n>` (the roster), of both protocols: classic
 * groups through DescribeGroups (the member user data), KIP-848 groups (listed when `kip848`)
 * through ConsumerGroupDescribe (the member info this adapter sends as the rack id).
 */
export async function poolMembers(
  admin: Admin,
  groupPrefix: string,
  kip848: boolean,
  coordinators: PlatformaticCoordinators,
  known?: PlatformaticKnownLeaders,
): Promise<LiveGroupMember[]> {
  const listed = await listGroups(admin, kip848, known);
  const pool = [...listed.values()]
    .filter((g) => g.id.startsWith(groupPrefix) && POOL_GROUP.test(g.id))
    .filter((g) => g.groupType === 'consumer' || g.protocolType === 'consumer');
  const classic = pool.filter((g) => g.groupType !== 'consumer').map((g) => g.id);
  const members: LiveGroupMember[] = [];
  if (classic.length > 0) {
    const described = await admin.describeGroups({ groups: classic });
    for (const group of described.values()) {
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
  }
  // KIP-848 members have no user data: this adapter sends the member info as their rack id.
  // One ConsumerGroupDescribe per coordinator for all its groups, not one per group in turn.
  const kip848Groups = pool.filter((g) => g.groupType === 'consumer').map((g) => g.id);
  const described = await describeConsumerGroups(admin, kip848Groups, coordinators);
  for (const groupId of kip848Groups) {
    const group = described.get(groupId);
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
