import type { LockMode } from './advisory-lock.interface.js';

export type BroadcastState = 'starting' | 'ready' | 'recovering' | 'stopped';

/**
 * A snapshot of the engine's state, for health checks and dashboards: the reader's state and
 * group, the pool as the allocator saw it, and the dispatcher's counters.
 */
export interface BroadcastStatus {
  /**
   * `starting` until the first group is ready, `ready` while reading through a group verified
   * this instance's alone, `recovering` whenever not ready after that (a rejoin, a move to
   * another group), `stopped` once stop() finished.
   */
  state: BroadcastState;
  /**
   * What the reader waits for while it is not ready (absent while ready, before start() and
   * once stopping):
   * - `'kafka'`: the broker's answers: the topic check or the start snapshot (failing while the
   *   broker cannot be reached), the deletes of free groups, and the pause after a rejoin
   *   attempt failed;
   * - `'pool'`: a free id of the pool: every id (`maxGroups`) is taken (see `poolExhausted`);
   * - `'group'`: a group being joined and verified this instance's alone, an earlier member of
   *   this instance being waited out (its session expiring), or a group being given up.
   */
  waitingFor?: 'kafka' | 'pool' | 'group';
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
   * How long this instance's heartbeats have gone unacknowledged by Kafka, in ms: a send in
   * flight counts from its start, a run of failed sends from the first. Absent while Kafka
   * acknowledges them (or delivers anyone's heartbeat here) and with `heartbeat: false`. What
   * readiness's outage grace (`health.outageGraceMs`) tells a Kafka that cannot be reached from
   * here by.
   */
  kafkaUnansweredMs?: number;
}
