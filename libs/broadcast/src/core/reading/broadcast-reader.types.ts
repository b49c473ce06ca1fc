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

/** A group the reader holds: its lock, its current membership, and our members of it. */
export interface Claim {
  id: number;
  groupId: string;
  lock: HeldLock;
  /** Replaced at each rejoin. */
  membership: GroupMembership;
  /** Our members of this group across memberships, which may linger after a crash. */
  ownMemberIds: Set<string>;
  /** Aborted once the lock watch found the lock lost: a rejoin in flight ends at once. */
  lockLost: AbortController;
}

/** What happens to the group the reader holds; `on` decides what each one leads to. */
export type ReaderEvent =
  /** The membership verified the group this instance's alone (first join, rebalance, rejoin). */
  | { kind: 'ready'; claim: Claim }
  /** The lock watch found the claim's lock lost: the group may be someone else's already. */
  | { kind: 'lock-lost'; claim: Claim }
  /** Another instance's member joined the group and this membership yielded. */
  | { kind: 'foreign'; claim: Claim; memberIds: string[] }
  /** The consumer crashed, or was fenced or expired (a client reports those as a crash). */
  | { kind: 'crashed'; claim: Claim; error: Error }
  | { kind: 'stopped' };

export const LOCK_LOST = 'the advisory lock was lost';

/** The reader's event for a membership's verdict. */
export function eventOf(claim: Claim, verdict: MembershipVerdict): ReaderEvent {
  if (verdict.kind === 'ready') return { kind: 'ready', claim };
  if (verdict.kind === 'foreign') return { kind: 'foreign', claim, memberIds: verdict.memberIds };
  return { kind: 'crashed', claim, error: verdict.error };
}
