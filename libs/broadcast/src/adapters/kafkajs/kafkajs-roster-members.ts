import kafkajs, { type Admin } from 'kafkajs';
import type { LiveGroupMember } from '../../interfaces/broadcast-roster.interface.js';

const POOL_GROUP = /-\d+$/;

type GroupDescriptions = Awaited<ReturnType<Admin['describeGroups']>>['groups'];

/**
 * Every member of every consumer group named `<groupPrefix>…-<n>`: one ListGroups (one request per
 * broker) and one DescribeGroups (one request per coordinator). A publish with receipts waits for
 * this read before it sends, so the groups listed by the previous read are described while the
 * listing is under way (a fleet's groups rarely change from one read to the next), and only the
 * groups new to the listing after it. Every member reported was one before the read returned,
 * as with the two in turn, so the instances a receipt expects were all reading before the send.
 */
export class LiveMembersReader {
  /** The pool groups of the latest listing, by prefix. */
  private readonly listed = new Map<string, readonly string[]>();

  async read(admin: Admin, groupPrefix: string): Promise<LiveGroupMember[]> {
    const known = this.listed.get(groupPrefix) ?? [];
    // A failure here (a group gone meanwhile, a lost connection) only costs the head start.
    const early =
      known.length > 0 ? admin.describeGroups([...known]).catch(() => undefined) : undefined;
    const { groups } = await admin.listGroups();
    const ids = groups
      .filter((g) => g.protocolType === 'consumer' && g.groupId.startsWith(groupPrefix))
      .map((g) => g.groupId)
      .filter((id) => POOL_GROUP.test(id));
    this.listed.set(groupPrefix, ids);
    if (ids.length === 0) return [];
    const described = new Map<string, GroupDescriptions[number]>();
    for (const group of (await early)?.groups ?? []) described.set(group.groupId, group);
    const rest = ids.filter((id) => !described.has(id));
    if (rest.length > 0)
      for (const group of (await admin.describeGroups(rest)).groups)
        described.set(group.groupId, group);
    return ids.flatMap((id) => membersOf(described.get(id)));
  }
}

function membersOf(group: GroupDescriptions[number] | undefined): LiveGroupMember[] {
  if (!group) return [];
  return group.members.map((member) => {
    let topics: string[] = [];
    let userData: string | undefined;
    try {
      const metadata = kafkajs.AssignerProtocol.MemberMetadata.decode(member.memberMetadata);
      topics = metadata?.topics ?? [];
      userData = metadata?.userData?.length ? metadata.userData.toString('utf8') : undefined;
    } catch {
      // A member of another client library: not one of ours.
    }
    return { groupId: group.groupId, memberId: member.memberId, topics, userData };
  });
}

/**
 * The consumer groups named `<groupPrefix>…` that have members: one ListGroups (one request per
 * broker) and, for the listed ones, one DescribeGroups per coordinator (kafkajs's listing carries
 * no group state, and an empty group lingers until its offsets expire).
 */
export async function listOccupiedGroups(admin: Admin, groupPrefix: string): Promise<string[]> {
  const { groups } = await admin.listGroups();
  const ids = groups
    .filter((g) => g.protocolType === 'consumer' && g.groupId.startsWith(groupPrefix))
    .map((g) => g.groupId);
  if (ids.length === 0) return [];
  const described = await admin.describeGroups(ids);
  return described.groups.filter((g) => g.members.length > 0).map((g) => g.groupId);
}
