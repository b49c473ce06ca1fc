import kafkajs, { type Admin } from 'kafkajs';
import type { LiveGroupMember } from '../../interfaces/broadcast-roster.interface.js';
import { listGroupsOnKnownBrokers } from './kafkajs-cluster-offsets.js';
import type { KafkajsGroupCoordinators } from './kafkajs-group-coordinators.js';

const POOL_GROUP = /-\d+$/;

/**
 * Every member of every consumer group named `<groupPrefix>…-<n>`: one ListGroups (one request per
 * broker) and one DescribeGroups per coordinator. The groups of the previous call are described
 * while the listing runs (one round trip instead of two when the pool did not change), the groups
 * the listing adds after it; a group described that the listing no longer shows is left out. So
 * every group listed is described after the call began, as when the describe followed the
 * listing.
 */
export async function listLiveMembers(
  admin: Admin,
  groupPrefix: string,
  cluster: Parameters<typeof listGroupsOnKnownBrokers>[0],
  metadataMaxAgeMs: number,
  /** The admin's group calls, and the admin's own Cluster they go through. */
  coordinators: KafkajsGroupCoordinators,
  own: unknown,
): Promise<LiveGroupMember[]> {
  const describe = (ids: string[]) => coordinators.describe(admin, own, ids);
  const known = coordinators.known();
  const [{ groups }, early] = await Promise.all([
    (async () =>
      (await listGroupsOnKnownBrokers(cluster, metadataMaxAgeMs).catch(() => undefined)) ??
      (await admin.listGroups()))(),
    describe(known),
  ]);
  const ids = groups
    .filter((g) => g.protocolType === 'consumer' && g.groupId.startsWith(groupPrefix))
    .map((g) => g.groupId)
    .filter((id) => POOL_GROUP.test(id));
  const listed = new Set(ids);
  const earlyIds = new Set(known);
  const described = [
    ...early.filter((group) => listed.has(group.groupId)),
    ...(await describe(ids.filter((id) => !earlyIds.has(id)))),
  ];
  coordinators.keepOnly(ids);
  const members: LiveGroupMember[] = [];
  for (const group of described) {
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
  cluster: Parameters<typeof listGroupsOnKnownBrokers>[0],
  metadataMaxAgeMs: number,
): Promise<string[]> {
  // Right after the topic check, on the brokers its metadata named (no refresh first).
  const { groups } =
    (await listGroupsOnKnownBrokers(cluster, metadataMaxAgeMs).catch(() => undefined)) ??
    (await admin.listGroups());
  return groups
    .filter((g) => g.protocolType === 'consumer' && g.groupId.startsWith(groupPrefix))
    .map((g) => g.groupId);
}
