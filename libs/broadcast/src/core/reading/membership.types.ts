import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import type {
  GroupConsumerSpec,
  KafkaPort,
  RecordSink,
} from '../../interfaces/kafka-port.interface.js';
import type { Deferred } from '../../shared/async.utils.js';
import type { StepProbe } from '../step-probe.js';

export type { StepProbe } from '../step-probe.js';

/** What one join attempt came to. */
export type MembershipVerdict =
  | { kind: 'ready' }
  /** `refusal`: the broker's refusal that showed it, when no describe did (see crashVerdict). */
  | { kind: 'foreign'; memberIds: string[]; refusal?: string }
  | { kind: 'failed'; error: Error };

/**
 * Where a membership reports every verdict it reaches, in order: given at its creation, so no
 * verdict can arrive before anyone listens (the reader's `on()` receives them all).
 */
export type VerdictChannel<M> = (membership: M, verdict: MembershipVerdict) => void;

/**
 * One generation of a membership (a join, a rebalance or a rejoin of the client), with what the
 * membership carries from the generations before it.
 */
export interface Round {
  generation: number;
  memberId: string;
  /** This generation's leader, as the coordinator chose it (the same answer for every member). */
  leader: boolean;
  /** Verified as the only member with this member id: the group is ours, newcomers must yield. */
  established: boolean;
  /** The reader took the membership over (handOver): records go to the handlers. */
  adopted: boolean;
  /** Settles true at the hand-over, false when this generation ends before it. */
  proof: Deferred<boolean>;
  /** The other members of an open contest: until this member left or was verified alone. */
  contested: string[] | undefined;
}

/**
 * Where one membership is. Every change goes through GroupMembership.decide; what a phase needs
 * (its generation, the contest's timer) is data of that phase, not a flag beside it.
 */
export type MembershipPhase =
  /** The consumer is starting; no generation yet. */
  | { name: 'joining' }
  /** Describing the group until it is this instance's alone, or someone else's. */
  | { name: 'verifying'; round: Round }
  /** Another instance's member is in the group: waiting for it to leave before deciding. */
  | { name: 'contesting'; round: Round; foreign: string[]; timer: NodeJS.Timeout }
  /** An earlier member of ours is still listed: the next generation is verified again. */
  | { name: 'waiting'; round: Round }
  /** Verified alone: `ready` was reported; records are held until the reader adopts it. */
  | { name: 'verified'; round: Round }
  /** Adopted by the reader: every record goes to the handlers, through later generations too. */
  | { name: 'reading'; round: Round }
  /** Given up (a foreign or failed verdict was reported) or stopping: nothing reaches handlers. */
  | { name: 'leaving' }
  /** The consumer stopped. */
  | { name: 'stopped' };

/** Everything that moves a membership; `decide` turns each into its phase. */
export type MembershipEvent =
  | { kind: 'joined'; memberId: string; leader: boolean; assignment: Assignment }
  | { kind: 'crashed'; error: Error }
  | { kind: 'handed-over' }
  | { kind: 'stop' }
  | { kind: 'stopped' }
  /** The membership's deadline passed (see GroupMembership.start) after `ms`. */
  | { kind: 'deadline'; ms: number }
  /** What a verification of `generation` found. */
  | { kind: 'alone' | 'predecessor' | 'unverified'; generation: number }
  | { kind: 'collided'; generation: number; foreign: string[] }
  /** A contest concluded (the others left, or its grace ended); `staying`: those still there. */
  | { kind: 'contest-ended'; generation: number; staying: string[] };

export type Assignment = ReadonlyMap<string, readonly number[]>;

export interface MembershipContext {
  kafka: KafkaPort;
  topics: readonly string[];
  sink: RecordSink;
  logger: BroadcastLogger;
  /** Where the engine reads a partition from (see ReadPositions); sought on every assignment. */
  positionOf(topic: string, partition: number): string;
  /** How far the consumer read, filtered records included (see GroupConsumerSpec.progress). */
  progress?: GroupConsumerSpec['progress'];
  /** Where a position the log no longer holds continues (see GroupConsumerSpec.outOfRange). */
  outOfRange?: GroupConsumerSpec['outOfRange'];
  /** Test-only hook: called at each startup step, so a test can stop right there. */
  probe?: StepProbe;
  /** How long a member that already held the group exclusively waits for a newcomer to leave. */
  contestGraceMs: number;
  /** Longest a generation that is not read from yet may take to a verdict (see start()). */
  joinTimeoutMs: number;
  /**
   * Longest the membership waits for an earlier member of this instance to leave the group (its
   * session expiring) before it gives up: that session is the client's in a classic group, the
   * broker's group.consumer.session.timeout.ms (45 s by default) in a KIP-848 one.
   */
  predecessorWaitMs: number;
}

/** Longest a membership's stop (LeaveGroup, disconnect) is waited for; the port bounds it too. */
export const LEAVE_MS = 35_000;

/** Describes one verification may take before the membership gives up. */
export const VERIFY_ATTEMPTS = 10;

/**
 * Longest a record fetched before the verification is held back. A verification that takes
 * longer (retries, or an earlier member still expiring) must not block the client's fetch loop
 * beyond this (kafkajs sends heartbeats from it): the record is dropped and its partition
 * sought back to the engine's position, so it is fetched again later.
 */
export const HOLD_MS = 1_000;
