import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import type { KafkaPort, TopicOffsets } from '../../interfaces/kafka-port.interface.js';
import type { BroadcastDispatcher } from '../dispatch/broadcast.dispatcher.js';
import {
  GroupMembership,
  type MembershipContext,
  type MembershipVerdict,
  type StepProbe,
  type VerdictChannel,
} from './group-membership.js';
import { resumeOutOfRange } from '../positions/out-of-range.js';
import type { ReadPositions } from '../positions/read-positions.js';

export interface JoinSettings {
  /** Longest one join attempt may take before the candidate is given up. */
  joinTimeoutMs: number;
  /** How long an established member waits for a newcomer to leave its group. */
  contestGraceMs: number;
  /** Longest a rejoin waits for an earlier member of ours to leave; default joinTimeoutMs. */
  predecessorWaitMs?: number;
}

/**
 * Makes the reader's memberships: each reports every verdict to the reader's channel (its
 * `on()`) from its creation on, and reads from the engine's positions.
 */
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
    private readonly report: VerdictChannel<GroupMembership>,
  ) {}

  /**
   * The start snapshot, once per start, before the first join: the high watermarks (or the
   * replay window's start), so nothing published after that moment can be skipped; every later
   * candidate and group resumes from the engine's positions (ReadPositions).
   */
  async snapshot(): Promise<void> {
    const { kafka, positions, probe, startOffsets } = this.deps;
    if (positions.hasStart) return;
    probe?.('snapshot');
    const topics = this.topics();
    positions.setStart(
      await (startOffsets ? startOffsets(topics) : kafka.admin.latestOffsets(topics)),
    );
  }

  /** A new membership of `groupId`, not started; `ownMemberIds` is shared by the claim's. */
  membership(groupId: string, ownMemberIds: Set<string>): GroupMembership {
    return new GroupMembership(groupId, this.context(), ownMemberIds, this.report);
  }

  private context(): MembershipContext {
    const { kafka, dispatcher, positions, logger, probe } = this.deps;
    const { joinTimeoutMs, contestGraceMs, predecessorWaitMs } = this.settings;
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
      contestGraceMs,
      joinTimeoutMs,
      predecessorWaitMs: predecessorWaitMs ?? joinTimeoutMs,
      probe,
    };
  }
}

export function describeRefusal(verdict: MembershipVerdict): string {
  if (verdict.kind === 'foreign')
    return `shared with member(s) ${verdict.memberIds.join(', ')}${refusalOf(verdict)}`;
  if (verdict.kind === 'failed') return `join failed: ${verdict.error.message}`;
  return 'ready';
}

/** The broker's refusal behind a `foreign` verdict, for a log line; empty without one. */
export function refusalOf(verdict: { refusal?: string }): string {
  return verdict.refusal ? ` (${verdict.refusal})` : '';
}
