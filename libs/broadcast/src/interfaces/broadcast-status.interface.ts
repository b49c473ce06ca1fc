import type { LockMode } from './advisory-lock.interface.js';

export type BroadcastState = 'starting' | 'ready' | 'recovering' | 'stopped';

/** A snapshot of the reader's state, for health checks and dashboards. */
export interface BroadcastStatus {
  state: BroadcastState;
  groupId: string | undefined;
  lockId: number | undefined;
  lockMode: LockMode;
  /** Now minus the newest message timestamp seen on any broadcast topic; undefined before the first. */
  lastLatencyMs: number | undefined;
  /** True while every id of the pool (maxGroups) is taken and the reader is waiting for one. */
  poolExhausted: boolean;
  /** Allocation passes that found the whole pool taken, since start (monotonic, for metrics). */
  poolExhaustions: number;
  received: number;
  /** Heartbeats received (from every instance, this one included). */
  heartbeats: number;
  /** Handler calls that threw, rejected or timed out; each attempt of a retried handler counts. */
  failed: number;
  /** Handler calls scheduled again after a failure (handler option `retry`). */
  retries: number;
  /**
   * Handlers of a message whose last attempt failed: final failures, each handed once to
   * `onHandlerError` and the dead-letter topic. Without `retry`, equal to `failed`.
   */
  exhausted: number;
  /** Failures not retried because `maxPendingRetries` retries were pending (final at once). */
  retriesShed: number;
  /** Retries waiting for their backoff or running now. */
  retriesPending: number;
  /** Records published to the dead-letter topic. */
  deadLettered: number;
  /** Dead letters the broker did not take (refused, or not within handlerTimeoutMs): logged. */
  deadLetterFailures: number;
  /** `onHandlerError` calls that threw, rejected or took longer than handlerTimeoutMs: logged. */
  hookFailures: number;
  skipped: number;
  /** Broadcasts targeted at other instances (skipped before any handler). */
  filtered: number;
  /** Broadcasts whose payload failed the topic's schema (skipped before any handler). */
  invalid: number;
  /**
   * Records below this instance's read position, refused before any handler: the Kafka client
   * handed them over again (a retried batch, a second fetcher after a leader move).
   */
  refused: number;
  /** A logger, instrumentation or validator threw around a record: contained and counted here. */
  internalErrors: number;
  /**
   * Records this instance never received because the log no longer held them when it got
   * there (retention or deleted records passed its position, e.g. during a long outage).
   */
  passedOver: number;
  /** Times the log ended before this instance's position (a truncation) and reading went back. */
  rewinds: number;
  /** Why the reader cannot read although retrying, e.g. a missing ACL; absent when none. */
  problem?: string;
  /**
   * What the reader waits for while not ready: `'kafka'` (the broker does not answer, at start
   * or in a recovery), `'pool'` (no free id in the pool) or `'group'` (joining or verifying its
   * consumer group); absent while ready.
   */
  waitingFor?: 'kafka' | 'pool' | 'group';
}
