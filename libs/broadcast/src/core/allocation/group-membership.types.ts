import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import type {
  GroupConsumerSpec,
  KafkaPort,
  RecordSink,
} from '../../interfaces/kafka-port.interface.js';

/** What one join attempt came to. */
export type MembershipVerdict =
  { kind: 'ready' } | { kind: 'foreign'; memberIds: string[] } | { kind: 'failed'; error: Error };

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
}

/** Internal test hook: called with the name of each startup step as it begins. */
export type StepProbe = (step: string) => void;

/** Describes one verification may take before the membership gives up. */
export const VERIFY_ATTEMPTS = 10;

/**
 * Longest a record fetched before the verification is held back. A verification that takes
 * longer (retries, or an earlier member still expiring) must not block the client's fetch loop
 * beyond this (kafkajs sends heartbeats from it): the record is dropped and its partition
 * sought back to the engine's position, so it is fetched again later.
 */
export const HOLD_MS = 1_000;
