import { isBroadcastStartupError } from '../errors/broadcast-startup.error.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import type { KafkaPort, TopicOffsets } from '../interfaces/kafka-port.interface.js';
import type { BroadcastDispatcher } from './broadcast.dispatcher.js';
import type { GroupJoiner } from './broadcast-group.allocator.js';
import {
  GroupMembership,
  type MembershipContext,
  type MembershipVerdict,
} from './group-membership.js';
import { nextOffset, resumeOffsets } from './resume-offsets.js';

/** A group the reader holds: its current membership and what it remembers about the group. */
export interface ActiveGroup {
  membership: GroupMembership;
  /** Where this group started reading. */
  startOffsets: TopicOffsets;
  /** Our members of this group across memberships, which may linger after a crash. */
  ownMemberIds: Set<string>;
}

export interface JoinSettings {
  /** Longest one join attempt may take before the candidate is given up. */
  joinTimeoutMs: number;
  /** How long an established member waits for a newcomer to leave its group. */
  contestGraceMs: number;
}

/** Creates memberships for the reader and waits for their verdicts. */
export class GroupJoins {
  constructor(
    private readonly settings: JoinSettings,
    private readonly deps: {
      kafka: KafkaPort;
      dispatcher: BroadcastDispatcher;
      logger: BroadcastLogger;
    },
    private readonly topics: () => readonly string[],
    private readonly signal: AbortSignal,
  ) {}

  /** Joins a candidate group from positions captured before the join (see resumeOffsets). */
  joiner(readFrom: () => TopicOffsets | undefined): GroupJoiner<ActiveGroup> {
    return async (groupId, deadline) => {
      const { kafka, dispatcher } = this.deps;
      const latest = await kafka.admin.latestOffsets(this.topics());
      const startOffsets = resumeOffsets(latest, readFrom(), dispatcher.delivered);
      const membership = new GroupMembership(groupId, this.context(), new Set(), startOffsets);
      const verdict = await this.join(membership, deadline);
      if (verdict.kind === 'ready') {
        return {
          accepted: true,
          value: { membership, startOffsets, ownMemberIds: new Set() },
        };
      }
      await membership.stop();
      // A missing ACL or a refused login fails every group alike: stop instead of walking the pool.
      if (verdict.kind === 'failed' && isBroadcastStartupError(verdict.error)) throw verdict.error;
      return { accepted: false, reason: describeRefusal(verdict) };
    };
  }

  join(membership: GroupMembership, deadline: number): Promise<MembershipVerdict> {
    const timeoutMs = Math.max(1, Math.min(this.settings.joinTimeoutMs, deadline - Date.now()));
    return membership.join(timeoutMs, this.signal);
  }

  context(): MembershipContext {
    const { kafka, dispatcher, logger } = this.deps;
    return {
      kafka,
      topics: this.topics(),
      sink: dispatcher.sink,
      logger,
      resumeFrom: (topic, partition) => nextOffset(dispatcher.delivered.get(topic)?.get(partition)),
      contestGraceMs: this.settings.contestGraceMs,
    };
  }
}

export function describeRefusal(verdict: MembershipVerdict): string {
  if (verdict.kind === 'foreign') return `shared with member(s) ${verdict.memberIds.join(', ')}`;
  if (verdict.kind === 'failed') return `join failed: ${verdict.error.message}`;
  return 'ready';
}
