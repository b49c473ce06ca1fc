import type { LiveGroupMember } from '../../interfaces/broadcast-roster.interface.js';
import type { GroupDescription } from './confluent-library.js';

/**
 * A classic member's subscription (ConsumerProtocolSubscription, the member metadata the
 * coordinator keeps): its topics, and its rack id (version 3), where this adapter puts the
 * engine's member info (librdkafka's assignors send no user data of the application's).
 */
export function readSubscription(metadata: Buffer | null | undefined): {
  topics: string[];
  rack: string | undefined;
} {
  const out = { topics: [] as string[], rack: undefined as string | undefined };
  if (!metadata || metadata.length < 6) return out;
  try {
    let at = 0;
    const version = metadata.readInt16BE(at);
    at += 2;
    const str = (): string | undefined => {
      const len = metadata.readInt16BE(at);
      at += 2;
      if (len < 0) return undefined;
      const s = metadata.toString('utf8', at, at + len);
      at += len;
      return s;
    };
    const topics = metadata.readInt32BE(at);
    at += 4;
    for (let i = 0; i < topics; i++) out.topics.push(str() ?? '');
    const userData = metadata.readInt32BE(at);
    at += 4 + Math.max(0, userData);
    if (version >= 1) {
      const owned = metadata.readInt32BE(at);
      at += 4;
      for (let i = 0; i < owned; i++) {
        str();
        at += 4 + 4 * metadata.readInt32BE(at);
      }
    }
    if (version >= 2) at += 4;
    if (version >= 3) out.rack = str();
  } catch {
    // A truncated or foreign subscription: its topics so far, no member info.
  }
  return out;
}

/** The members of described pool groups, each with the member info it sent as its rack id. */
export function rosterMembers(groups: readonly GroupDescription[]): LiveGroupMember[] {
  const members: LiveGroupMember[] = [];
  for (const group of groups)
    for (const m of group.members) {
      const { topics, rack } = readSubscription(m.memberMetadata);
      members.push({
        groupId: group.groupId,
        memberId: m.memberId,
        topics,
        userData: rack || undefined,
      });
    }
  return members;
}
