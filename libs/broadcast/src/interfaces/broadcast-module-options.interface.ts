import type { AdvisoryLockFactory } from './advisory-lock-factory.interface.js';
import type { AdvisoryLockProvider } from './advisory-lock.interface.js';
import type {
  BroadcastDeadLetterOptions,
  HandlerErrorHook,
} from './broadcast-failure-policy.interface.js';
import type { BroadcastKafkaOptions } from './broadcast-kafka-options.interface.js';

/** Where the advisory locks come from: a lock provider of your own, or a TypeORM DataSource. */
export interface BroadcastLockOptions {
  /**
   * Locks without TypeORM: `pgAdvisoryLocks(pool)` / `mysqlAdvisoryLocks(pool)` from
   * `nestjs-kafka-broadcast/locks`, or any AdvisoryLockProvider (or a factory of one).
   * When set, `dataSource` is not used.
   */
  provider?: AdvisoryLockProvider | AdvisoryLockFactory;
  /**
   * TypeORM DataSource name (needs `@nestjs/typeorm`); the default DataSource when omitted.
   * Without `@nestjs/typeorm` or a DataSource, and without `provider`, the engine runs lock-free.
   */
  dataSource?: string;
  /** How often the lock's own connection is checked, in ms (default 3000). */
  checkIntervalMs?: number;
}

export interface BroadcastHeartbeatOptions {
  /** Target gap between heartbeats across the whole cluster, in ms (default 10000). */
  intervalMs?: number;
  /** Fraction in [0, 1) by which each wait is randomly shortened (default 0.25). */
  jitter?: number;
  /** Logical topic name, before topicPrefix (default 'broadcast.heartbeat.v1'). */
  topic?: string;
}

export interface BroadcastConsumerOptions {
  /** Kafka session timeout, in ms (default 10000). A crashed member lingers this long. */
  sessionTimeoutMs?: number;
  /** Consumer heartbeat interval, in ms (default 1000). */
  heartbeatIntervalMs?: number;
  /** Longest a fetch waits for data, in ms (default 250); bounds shutdown. */
  maxWaitTimeMs?: number;
  /** How often metadata is refreshed, so new partitions are seen, in ms (default 30000). */
  metadataMaxAgeMs?: number;
}

export interface BroadcastTopicOptions {
  /** Partitions of topics the engine creates (default 1). */
  numPartitions?: number;
  /** Replication factor of topics the engine creates (default: the broker's default). */
  replicationFactor?: number;
}

export interface BroadcastHealthOptions {
  /**
   * Readiness: longest acceptable lastLatencyMs (default 2 × heartbeat interval). Needs
   * heartbeats: with `heartbeat: false` readiness does not ask for fresh messages, and setting
   * this is an error.
   */
  maxStalenessMs?: number;
  /**
   * Liveness: longest the reader may stay `starting` or `recovering` before isAlive() is down,
   * in ms. Default: no limit, so an outage of the broker (which a restart cannot fix) never
   * fails liveness.
   */
  maxUnreadyMs?: number;
  /**
   * Readiness through a Kafka outage: longest an instance that was ready stays up for readiness
   * while Kafka cannot be reached from it, in ms (default 60000). Kafka away is then away for
   * every instance alike, and taking them all out of their Service gains nothing: while it lasts
   * (the reader waiting for Kafka or rejoining its group, or its view stale while its own
   * heartbeats go unacknowledged) `isReady()` stays up and its details name the wait
   * (`outage`). An instance that falls behind while Kafka takes its heartbeats still leaves
   * rotation at once. No value with `strict: true`.
   */
  outageGraceMs?: number;
  /**
   * Readiness without the outage grace (default false): down whenever the reader is not ready or
   * its view is stale, Kafka away included, for services that prefer unavailability to
   * staleness.
   */
  strict?: boolean;
}

/** When the engine stops relative to the HTTP server; see BroadcastModuleOptions.shutdown. */
export type BroadcastShutdownOrder = 'before-http' | 'after-http';

/** Options of BroadcastModule.forRoot(). */
export interface BroadcastModuleOptions {
  /** How to reach Kafka: brokers, clientId, ssl, sasl, timeouts. */
  kafka: BroadcastKafkaOptions;
  /** Prepended to every topic and consumer-group name (default ''). */
  topicPrefix?: string;
  /** Base of the group names `<prefix><base>-<n>`. */
  groupBaseName?: string;
  /** Advisory locks from a lock provider or a TypeORM DataSource, or `false` for lock-free mode. */
  lock?: BroadcastLockOptions | false;
  /** Size of the group-id pool (default 200). */
  maxGroups?: number;
  /** Heartbeat traffic that keeps freshness measurable, or `false`. */
  heartbeat?: BroadcastHeartbeatOptions | false;
  /** Longest a handler is awaited before it counts as failed, in ms (default min(5000, sessionTimeoutMs / 2)); below consumer.sessionTimeoutMs. */
  handlerTimeoutMs?: number;
  /** Deadline for the first group allocation, in ms (default 60000). */
  startupTimeoutMs?: number;
  /** What BroadcastHealthIndicator's readiness and liveness checks accept. */
  health?: BroadcastHealthOptions;
  /**
   * When BroadcastModule stops the engine (leave the group, free the lock, disconnect) on
   * app.close(): `'before-http'` (default) before Nest closes the HTTP server, so requests may be
   * answered meanwhile by an instance that no longer receives broadcasts; `'after-http'` right
   * after the module closed the (listening) HTTP server itself. Both in beforeApplicationShutdown.
   */
  shutdown?: BroadcastShutdownOrder;
  /** When true (default), application bootstrap waits until the reader is ready. */
  waitForReady?: boolean;
  consumer?: BroadcastConsumerOptions;
  topics?: BroadcastTopicOptions;
  /** Identifies this instance in heartbeats, the roster, receipts and targeting (default: hostname-pid-random). */
  instanceId?: string;
  /**
   * How often the live roster is read from the broker, in ms, from its first use on (default
   * 3000; 0: only on demand).
   */
  roster?: { intervalMs?: number };
  /** Topic of receipt acknowledgements (default 'broadcast.receipts.v1'), or false: no receipts. */
  receipts?: { topic?: string } | false;
  /**
   * Per logical topic, a window in ms: at startup this instance reads that topic from
   * `now − window` (offsets by timestamp) instead of from now. Default: none.
   */
  replay?: Record<string, number>;
  /**
   * What the library records through the OpenTelemetry API (each a no-op until the application
   * registers that SDK provider): `traces` (default true) a PRODUCER span per publish, with its
   * W3C trace context in the headers, and a CONSUMER span per handler call; `metrics` (default
   * true) the broadcast.* instruments. `false` turns both off. A tracing application can keep
   * `traces: false` for high-rate topics: each span costs about as much as consuming the message.
   */
  telemetry?: { traces?: boolean; metrics?: boolean } | false;
  /**
   * Called once per message and handler whose last attempt failed (after its retries, see
   * `@OnBroadcast(topic, { retry })`), with the error and the topic, handler, message and
   * attempts. Bounded by `handlerTimeoutMs` and contained: a failing hook is logged and counted
   * (`hookFailures`). Default: none.
   */
  onHandlerError?: HandlerErrorHook;
  /**
   * A dead-letter topic: once a handler's last attempt failed, the original record (key, value
   * bytes, headers) is published there with `x-broadcast-dlt-*` headers naming the topic,
   * partition, offset, handler, error, attempts and instance. Default: none.
   */
  deadLetter?: BroadcastDeadLetterOptions | false;
  /**
   * Retries waiting or running in the background at most, for this engine (default 1000).
   * A failure that finds them all taken is not retried: it goes to `onHandlerError` and the
   * dead-letter topic at once, counted in `retriesShed`.
   */
  maxPendingRetries?: number;
}
