import { isBroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import type { KafkaPort, TopicOffsets } from '../../interfaces/kafka-port.interface.js';
import type { BroadcastDispatcher } from '../dispatch/broadcast.dispatcher.js';
import {
  GroupMembership,
  type MembershipContext,
  type MembershipVerdict,
  type StepProbe,
} from './group-membership.js';
import { resumeOutOfRange } from '../positions/out-of-range.js';
import type { ReadPositions } from '../positions/read-positions.js';

/** A candidate group joined and verified this instance's alone, or why not. */
export type Tried =
  | { accepted: true; membership: GroupMembership; ownMemberIds: Set<string> }
  | { accepted: false; reason: string };

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
      positions: ReadPositions;
      logger: BroadcastLogger;
      probe?: StepProbe;
      startOffsets?: (topics: readonly string[]) => Promise<TopicOffsets>;
    },
    private readonly topics: () => readonly string[],
    private readonly signal: AbortSignal,
  ) {}

  /**
   * Joins a candidate group. The first attempt of a start snapshots the high watermarks (or the
   * replay window's start) before it joins, so nothing published after that moment can be
   * skipped; every later candidate and group resumes from the engine's positions (ReadPositions).
   */
  async tryGroup(groupId: string, deadline: number): Promise<Tried> {
    const { kafka, positions, probe } = this.deps;
    if (!positions.hasStart) {
      probe?.('snapshot');
      const { startOffsets } = this.deps;
      const topics = this.topics();
      positions.setStart(
        await (startOffsets ? startOffsets(topics) : kafka.admin.latestOffsets(topics)),
      );
    }
    // One set for the whole claim: the rejoin after a crash must know the earlier members.
    const ownMemberIds = new Set<string>();
    const membership = new GroupMembership(groupId, this.context(), ownMemberIds);
    const verdict = await this.join(membership, deadline);
    if (verdict.kind === 'ready') return { accepted: true, membership, ownMemberIds };
    await membership.stop();
    // A missing ACL or a refused login fails every group alike: stop instead of walking the pool.
    if (verdict.kind === 'failed' && isBroadcastStartupError(verdict.error)) throw verdict.error;
    return { accepted: false, reason: describeRefusal(verdict) };
  }

  /**
   * Waits for the membership's first verdict, until the join timeout or `deadline`. The reader
   * stopping, or `lost` (the claim's lock was lost), ends the wait at once with a `failed`
   * verdict: the caller, which knows why, looks at its signals before the verdict.
   */
  join(
    membership: GroupMembership,
    deadline: number,
    lost?: AbortSignal,
  ): Promise<MembershipVerdict> {
    const timeoutMs = Math.max(1, Math.min(this.settings.joinTimeoutMs, deadline - Date.now()));
    return membership.join(timeoutMs, lost ? AbortSignal.any([this.signal, lost]) : this.signal);
  }

  context(): MembershipContext {
    const { kafka, dispatcher, positions, logger, probe } = this.deps;
    return {
      kafka,
      topics: this.topics(),
      sink: dispatcher.sink,
      logger,
      positionOf: (topic, partition) => positions.positionOf(topic, partition),
      progress: (topic, partition, next, timestamp) =>
        positions.reached(topic, partition, next, timestamp),
      outOfRange: (topic, partition) =>
        resumeOutOfRange({ admin: kafka.admin, positions, logger }, topic, partition),
      contestGraceMs: this.settings.contestGraceMs,
      probe,
    };
  }
}

export function describeRefusal(verdict: MembershipVerdict): string {
  if (verdict.kind === 'foreign') return `shared with member(s) ${verdict.memberIds.join(', ')}`;
  if (verdict.kind === 'failed') return `join failed: ${verdict.error.message}`;
  return 'ready';
}
