import { randomBytes } from 'node:crypto';
import type { LiveGroupMember } from '../../interfaces/broadcast-roster.interface.js';
import type { GroupDescription } from './confluent-library.js';

/** `-<12 hex>`, then the member info (base64url) after a dot, at the end of a client id. */
const CARRIED = /-[0-9a-f]{12}\.([A-Za-z0-9_-]+)$/;

/**
 * A group consumer's client id: the configured one, 12 random hex digits (the admin finds this
 * member by it: the consumer does not tell its member id), and the engine's member info
 * (base64url, so the id keeps to characters brokers, quotas and logs take as they are).
 *
 * The client id carries the member info because it is the one free string that the binding's
 * DescribeGroups gives back on both protocols: it passes no member metadata (the classic
 * subscription's user data and rack id; `memberMetadata` is always null in 1.10.1) and no
 * KIP-848 rack id, and the group instance id is the engine's claim.
 */
export function consumerClientId(base: string, userData: string | undefined): string {
  const unique = `${base}-${randomBytes(6).toString('hex')}`;
  return userData === undefined
    ? unique
    : `${unique}.${Buffer.from(userData, 'utf8').toString('base64url')}`;
}

/** The member info a client id of `consumerClientId` carries; undefined for any other. */
export function carriedUserData(clientId: string | undefined): string | undefined {
  const carried = clientId ? CARRIED.exec(clientId)?.[1] : undefined;
  return carried ? Buffer.from(carried, 'base64url').toString('utf8') : undefined;
}

/** The topics of a member's assignment and (KIP-848) target assignment. */
function assignedTopics(member: GroupDescription['members'][number]): string[] {
  const { assignment, targetAssignment } = member;
  const parts = [
    ...(assignment?.topicPartitions ?? []),
    ...(targetAssignment?.topicPartitions ?? []),
  ];
  return [...new Set(parts.map((p) => p.topic))];
}

/**
 * The members of described pool groups, each with the member info its client id carries. The
 * topics are those of its assignment (the binding passes no subscription): a pool group's
 * member is assigned every partition of the topics it reads, none while a rebalance moves them.
 */
export function rosterMembers(groups: readonly GroupDescription[]): LiveGroupMember[] {
  return groups.flatMap((group) =>
    group.members.map((m) => ({
      groupId: group.groupId,
      memberId: m.memberId,
      topics: assignedTopics(m),
      userData: carriedUserData(m.clientId),
    })),
  );
}
