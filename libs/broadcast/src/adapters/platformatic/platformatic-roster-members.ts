import type { Admin } from '@platformatic/kafka';
import type { LiveGroupMember } from '../../interfaces/broadcast-roster.interface.js';
import { describeConsumerGroup } from './platformatic-consumer-group-describe.js';
import { brokerState } from './platformatic-group-state.js';

const POOL_GROUP = /-\d+$/;

type Described = Awaited<ReturnType<Admin['describeGroups']>>;

/**
 * Members of the pool groups named `<groupPrefix>…-<n>` (the roster), of both protocols: classic
 * groups through DescribeGroups (the member user data), KIP-848 groups (listed when `kip848`)
 * through ConsumerGroupDescribe (the member info this adapter sends as the rack id).
 *
 * A publish with receipts waits for this read before it sends, so the classic groups listed by
 * the previous read are described while the listing is under way (a fleet's groups rarely change
 * from one read to the next), and only the groups new to the listing after it. Every member
 * reported was one before the read returned, as with the two in turn, so the instances a
 * receipt expects were all reading before the send.
 */
export class PoolMembersReader {
  /** The classic pool groups of the latest listing, by prefix. */
  private readonly listed = new Map<string, readonly string[]>();

  async read(admin: Admin, groupPrefix: string, kip848: boolean): Promise<LiveGroupMember[]> {
    const known = this.listed.get(groupPrefix) ?? [];
    // A failure here (a group gone meanwhile, a lost connection) only costs the head start.
    const early =
      known.length > 0
        ? admin.describeGroups({ groups: [...known] }).catch(() => undefined)
        : undefined;
    const listed = await admin.listGroups({
      types: kip848 ? ['classic', 'consumer'] : ['classic'],
    });
    const pool = [...listed.values()]
      .filter((g) => g.id.startsWith(groupPrefix) && POOL_GROUP.test(g.id))
      .filter((g) => g.groupType === 'consumer' || g.protocolType === 'consumer');
    const classic = pool.filter((g) => g.groupType !== 'consumer').map((g) => g.id);
    this.listed.set(groupPrefix, classic);
    const described: Described = new Map();
    for (const [id, group] of (await early) ?? []) described.set(id, group);
    const rest = classic.filter((id) => !described.has(id));
    if (rest.length > 0)
      for (const [id, group] of await admin.describeGroups({ groups: rest }))
        described.set(id, group);
    const members = classic.flatMap((id) => classicMembers(described.get(id)));
    // KIP-848 members have no user data: this adapter sends the member info as their rack id.
    for (const group of pool.filter((g) => g.groupType === 'consumer')) {
      const consumer = await describeConsumerGroup(admin, group.id).catch(() => undefined);
      if (consumer?.kind !== 'consumer') continue;
      for (const m of consumer.members)
        members.push({
          groupId: group.id,
          memberId: m.memberId,
          topics: m.subscribedTopicNames,
          userData: m.rackId ?? undefined,
        });
    }
    return members;
  }
}

function classicMembers(group: ReturnType<Described['get']>): LiveGroupMember[] {
  if (!group) return [];
  return [...group.members.values()].map((member) => {
    const metadata = member.metadata;
    const userData = metadata?.metadata;
    return {
      groupId: group.id,
      memberId: member.id,
      topics: metadata?.topics ?? [],
      userData: userData?.length ? Buffer.from(userData).toString('utf8') : undefined,
    };
  });
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
): Promise<string[]> {
  const listed = await admin.listGroups({
    types: kip848 ? ['classic', 'consumer'] : ['classic'],
  });
  return [...listed.values()]
    .filter((g) => g.id.startsWith(groupPrefix))
    .filter((g) => g.groupType === 'consumer' || g.protocolType === 'consumer')
    .filter((g) => !EMPTY_STATES.has(brokerState(g.state)))
    .map((g) => g.id);
}

const EMPTY_STATES = new Set(['Empty', 'Dead']);
