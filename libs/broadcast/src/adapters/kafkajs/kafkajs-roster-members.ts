import kafkajs, { type Admin } from 'kafkajs';
import type { LiveGroupMember } from '../../interfaces/broadcast-roster.interface.js';
import { listGroupsOnKnownBrokers } from './kafkajs-cluster-offsets.js';

const POOL_GROUP = /-\d+$/;

/**
 * Every member of every consumer group named `<groupPrefix>…-<n>`: one ListGroups (one request per
 * broker) and one DescribeGroups (one request per coordinator).
 */
export async function listLiveMembers(
  admin: Admin,
  groupPrefix: string,
  cluster?: Parameters<typeof listGroupsOnKnownBrokers>[0],
): Promise<LiveGroupMember[]> {
  const { groups } =
    (await listGroupsOnKnownBrokers(cluster).catch(() => undefined)) ?? (await admin.listGroups());
  const ids = groups
    .filter((g) => g.protocolType === 'consumer' && g.groupId.startsWith(groupPrefix))
    .map((g) => g.groupId)
    .filter((id) => POOL_GROUP.test(id));
  if (ids.length === 0) return [];
  const described = await admin.describeGroups(ids);
  const members: LiveGroupMember[] = [];
  for (const group of described.groups) {
    for (const member of group.members) {
      let topics: string[] = [];
      let userData: string | undefined;
      try {
        const metadata = kafkajs.AssignerProtocol.MemberMetadata.decode(member.memberMetadata);
        topics = metadata?.topics ?? [];
        userData = metadata?.userData?.length ? metadata.userData.toString('utf8') : undefined;
      } catch {
        // A member of another client library: not one of ours.
      }
      members.push({ groupId: group.groupId, memberId: member.memberId, topics, userData });
    }
  }
  return members;
}

/**
 * The consumer groups named `<groupPrefix>…` that may have members: one ListGroups (one request
 * per broker). kafkajs's listing carries no group state, and describing every listed group to
 * find the empty ones cost each lock-free draw a DescribeGroups and a FindCoordinator per group:
 * a fleet of N starting together asked N² of them. A stopping instance deletes the group it left,
 * so an empty group is now one whose member crashed; counted as taken, it is only tried later.
 * The caller takes the answer as a hint (see occupiedPoolIds).
 */
export async function listOccupiedGroups(
  admin: Admin,
  groupPrefix: string,
  cluster?: Parameters<typeof listGroupsOnKnownBrokers>[0],
): Promise<string[]> {
  // Right after the topic check, on the brokers its metadata named (no refresh first).
  const { groups } =
    (await listGroupsOnKnownBrokers(cluster).catch(() => undefined)) ?? (await admin.listGroups());
  return groups
    .filter((g) => g.protocolType === 'consumer' && g.groupId.startsWith(groupPrefix))
    .map((g) => g.groupId);
}
