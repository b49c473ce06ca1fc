import type { AdvisoryLockProvider, HeldLock } from '../../interfaces/advisory-lock.interface.js';
import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import type { KafkaPort, TopicOffsets } from '../../interfaces/kafka-port.interface.js';
import type { BroadcastDispatcher } from '../dispatch/broadcast.dispatcher.js';
import type { BroadcastGroupAllocator } from '../allocation/broadcast-group.allocator.js';
import type { BroadcastHandlerRegistry } from '../dispatch/broadcast-handler.registry.js';
import type { GroupMembership, MembershipVerdict } from './group-membership.js';
import type { StepProbe } from '../step-probe.js';
import type { ReadPositions } from '../positions/read-positions.js';

export interface ReaderSettings {
  topicPrefix: string;
  heartbeatTopic: string;
  startupTimeoutMs: number;
  /** When false, a failed startup keeps allocating in the background instead of failing. */
  failOnStartupTimeout: boolean;
  /** 0 disables lock checks (lock-free mode). */
  lockCheckIntervalMs: number;
  /** Longest one join attempt may take before the candidate is given up. */
  joinTimeoutMs: number;
  /** How long an established member waits for a newcomer to leave its group. */
  contestGraceMs: number;
  /**
   * Longest a rejoin waits for an earlier member of this instance to leave the group (see
   * MembershipContext.predecessorWaitMs); default: joinTimeoutMs.
   */
  predecessorWaitMs?: number;
}

export interface ReaderDeps {
  kafka: KafkaPort;
  allocator: BroadcastGroupAllocator;
  registry: BroadcastHandlerRegistry;
  dispatcher: BroadcastDispatcher;
  /** Where every partition is read from; shared with the dispatcher, which advances it. */
  positions: ReadPositions;
  locks: AdvisoryLockProvider;
  /** The start snapshot (default: the high watermarks); the replay window moves it back. */
  startOffsets?: (topics: readonly string[]) => Promise<TopicOffsets>;
  logger: BroadcastLogger;
  /** Internal test hook, not an option: called as each startup/recovery step begins. */
  probe?: StepProbe;
}

/**
 * A group the reader holds through one membership: its lock, that membership, and our members
 * of the group. A rejoin makes a new claim (same group, lock and member ids, a new membership):
 * an event of an earlier membership then names a claim that is no longer the reader's.
 */
export interface Claim {
  readonly id: number;
  readonly groupId: string;
  readonly lock: HeldLock;
  readonly membership: GroupMembership;
  /** Our members of this group across its memberships, which may linger after a crash. */
  readonly ownMemberIds: Set<string>;
}

/** What the reader waits for while it is not ready (BroadcastStatus.waitingFor). */
export type WaitingFor = 'kafka' | 'pool' | 'group';

/**
 * Where the reader is. Changed only by BroadcastReader.on(); what a phase needs (its claim, the
 * verdict a step waits for, what wakes a pause) is data of the phase, not a field beside it.
 */
export type ReaderPhase =
  /** Built; start() not called yet. */
  | { name: 'idle' }
  /** Looking for a group: the topic check, the start snapshot, the pool's free groups. */
  | { name: 'allocating' }
  /**
   * A free group of the pool was locked and joined: its membership's verdict is awaited.
   * `verdict` settles with the first one; a later one waits in `next` for the adoption.
   */
  | {
      name: 'joining';
      membership: GroupMembership;
      verdict: (verdict: MembershipVerdict) => void;
      answered: boolean;
      next?: MembershipVerdict;
    }
  /** Reading through the claim's group, verified this instance's alone. */
  | { name: 'ready'; claim: Claim }
  /**
   * The claim's consumer crashed or failed its verification: the same group with a new member.
   * `attempt` counts the failed attempts; `joining` while its membership is under way; `wake`
   * ends the pause between two attempts when the phase ends.
   */
  | { name: 'rejoining'; claim: Claim; attempt: number; joining: boolean; wake: AbortController }
  /** Giving the claim's group up (leave, then unlock), then allocating another. */
  | { name: 'moving'; claim: Claim; reason: string }
  /**
   * stop() was called: the claim (if any) is left, its group deleted if `deleteGroup` (never a
   * group given up), its lock released. `state`: the public state when stop() was called.
   */
  | { name: 'stopping'; claim: Claim | undefined; deleteGroup: boolean; state: PublicState }
  | { name: 'stopped' };

type PublicState = 'starting' | 'ready' | 'recovering' | 'stopped';

/** Everything that moves the reader; `on()` decides what each one leads to. */
export type ReaderEvent =
  /** start() was called. */
  | { kind: 'start' }
  /** The allocation looks for a group (again). */
  | { kind: 'allocating' }
  /** The allocation joined a free group: due within `timeoutMs`, its verdict goes to `verdict`. */
  | {
      kind: 'candidate';
      membership: GroupMembership;
      timeoutMs: number;
      verdict: (v: MembershipVerdict) => void;
    }
  /** The allocation verified a group this instance's alone and kept it. */
  | { kind: 'claimed'; claim: Claim }
  /** A membership reached a verdict (its channel, given at its creation). */
  | { kind: 'verdict'; membership: GroupMembership; verdict: MembershipVerdict }
  /** The lock watch, or a rejoin's check, found this lock lost. */
  | { kind: 'lock-lost'; lock: HeldLock }
  /** A rejoin attempt made a new membership of the claim's group. */
  | { kind: 'rejoin-attempt'; claim: Claim }
  /** The group being given up was left and unlocked. */
  | { kind: 'left' }
  | { kind: 'stop' }
  | { kind: 'stopped' };

/**
 * What the reader's helpers (its allocation, its steps) see of it: the phase now, and `on()`,
 * where every outcome of theirs goes.
 */
export interface ReaderHost {
  phase(): ReaderPhase;
  on(event: ReaderEvent): void;
}

export const LOCK_LOST = 'the advisory lock was lost';
