import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import * as D from './broadcast.defaults.js';
import { BroadcastOptionsError } from '../../errors/broadcast-options.error.js';
import { bool, isObject, name, nonEmptyName, positiveInt } from './option-checks.js';
import { resolveConsumer } from './consumer-options.resolver.js';
import { refuseUnknownKeys } from './option-keys.js';
import { resolveKafka } from './kafka-options.resolver.js';
import { resolveFailureOptions, type ResolvedFailureOptions } from './failure-options.resolver.js';
import { resolveFeatureOptions, type ResolvedFeatureOptions } from './feature-options.resolver.js';
import type {
  BroadcastModuleOptions,
  BroadcastShutdownOrder,
} from '../../interfaces/broadcast-module-options.interface.js';
import type { AdvisoryLockFactory } from '../../interfaces/advisory-lock-factory.interface.js';
import type { AdvisoryLockProvider } from '../../interfaces/advisory-lock.interface.js';
import type { BroadcastKafkaOptions } from '../../interfaces/broadcast-kafka-options.interface.js';

/** Options with every default filled in and every value checked. */
export interface ResolvedBroadcastOptions extends ResolvedFeatureOptions, ResolvedFailureOptions {
  kafka: BroadcastKafkaOptions;
  topicPrefix: string;
  groupBaseName: string | undefined;
  lock:
    | {
        dataSource: string | undefined;
        provider: AdvisoryLockProvider | AdvisoryLockFactory | undefined;
        checkIntervalMs: number;
      }
    | false;
  maxGroups: number;
  heartbeat: { intervalMs: number; jitter: number; topic: string } | false;
  heartbeatTopic: string;
  handlerTimeoutMs: number;
  startupTimeoutMs: number;
  /** Readiness bound on lastLatencyMs; not applied with heartbeat: false. */
  maxStalenessMs: number;
  /** Liveness bound on how long the reader may be not ready; undefined: none. */
  maxUnreadyMs: number | undefined;
  /** Readiness's grace while Kafka cannot be reached; undefined with `health.strict: true`. */
  outageGraceMs: number | undefined;
  shutdown: BroadcastShutdownOrder;
  waitForReady: boolean;
  consumer: Required<NonNullable<BroadcastModuleOptions['consumer']>>;
  topics: { numPartitions: number; replicationFactor: number | undefined };
  instanceId: string;
  /** The instanceId came from the options: only then can two live instances share it. */
  instanceIdChosen: boolean;
}

/** Validates user options and fills in defaults; throws BroadcastOptionsError naming the option. */
export function resolveBroadcastOptions(options: BroadcastModuleOptions): ResolvedBroadcastOptions {
  if (!isObject(options)) throw new BroadcastOptionsError('options', 'an object', options);
  refuseUnknownKeys(options);
  for (const section of ['consumer', 'health', 'topics'] as const) {
    const value: unknown = options[section];
    if (value !== undefined && !isObject(value))
      throw new BroadcastOptionsError(section, 'an object', value);
  }
  const heartbeat = resolveHeartbeat(options.heartbeat);
  const consumer = resolveConsumer(options.consumer ?? {});
  const handlerTimeoutMs = positiveInt(
    'handlerTimeoutMs',
    options.handlerTimeoutMs,
    Math.max(1, Math.min(D.DEFAULT_HANDLER_TIMEOUT_MS, Math.floor(consumer.sessionTimeoutMs / 2))),
  );
  // Heartbeats go out between records: a handler awaited longer than the session would cost the membership.
  if (handlerTimeoutMs >= consumer.sessionTimeoutMs) {
    throw new BroadcastOptionsError(
      'handlerTimeoutMs',
      `an integer below consumer.sessionTimeoutMs (${consumer.sessionTimeoutMs})`,
      handlerTimeoutMs,
    );
  }
  return {
    ...resolveFeatureOptions(options),
    ...resolveFailureOptions(options),
    kafka: resolveKafka(options.kafka),
    topicPrefix: name('topicPrefix', options.topicPrefix, ''),
    groupBaseName:
      options.groupBaseName === undefined
        ? undefined
        : nonEmptyName('groupBaseName', options.groupBaseName),
    lock: resolveLock(options.lock),
    maxGroups: positiveInt('maxGroups', options.maxGroups, D.DEFAULT_MAX_GROUPS, 1_000_000),
    heartbeat,
    heartbeatTopic: heartbeat ? heartbeat.topic : D.DEFAULT_HEARTBEAT_TOPIC,
    handlerTimeoutMs,
    startupTimeoutMs: positiveInt(
      'startupTimeoutMs',
      options.startupTimeoutMs,
      D.DEFAULT_STARTUP_TIMEOUT_MS,
    ),
    ...resolveHealth(options.health, heartbeat),
    shutdown: resolveShutdown(options.shutdown),
    waitForReady: bool('waitForReady', options.waitForReady, true),
    consumer,
    topics: {
      numPartitions: positiveInt(
        'topics.numPartitions',
        options.topics?.numPartitions,
        D.DEFAULT_TOPIC_PARTITIONS,
      ),
      replicationFactor:
        options.topics?.replicationFactor === undefined
          ? undefined
          : positiveInt('topics.replicationFactor', options.topics.replicationFactor, 1),
    },
    instanceId:
      options.instanceId === undefined
        ? defaultInstanceId()
        : nonEmptyName('instanceId', options.instanceId),
    instanceIdChosen: options.instanceId !== undefined,
  };
}

function defaultInstanceId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`.replace(
    /[^a-zA-Z0-9._-]/g,
    '_',
  );
}

function resolveLock(lock: BroadcastModuleOptions['lock']): ResolvedBroadcastOptions['lock'] {
  if (lock === false) return false;
  if (lock !== undefined && !isObject(lock)) {
    throw new BroadcastOptionsError(
      'lock',
      '{ dataSource?: string, provider?: AdvisoryLockProvider, checkIntervalMs?: number } or false',
      lock,
    );
  }
  const dataSource = lock?.dataSource;
  if (dataSource !== undefined && (typeof dataSource !== 'string' || dataSource === '')) {
    throw new BroadcastOptionsError(
      'lock.dataSource',
      'a TypeORM DataSource name (non-empty string)',
      dataSource,
    );
  }
  const provider = lock?.provider;
  if (
    provider !== undefined &&
    typeof provider !== 'function' &&
    !(isObject(provider) && typeof provider.tryLock === 'function')
  ) {
    throw new BroadcastOptionsError(
      'lock.provider',
      'an AdvisoryLockProvider (with tryLock) or a function returning one',
      provider,
    );
  }
  const checkIntervalMs = positiveInt(
    'lock.checkIntervalMs',
    lock?.checkIntervalMs,
    D.DEFAULT_LOCK_CHECK_INTERVAL_MS,
  );
  return { dataSource, provider, checkIntervalMs };
}

function resolveHeartbeat(
  heartbeat: BroadcastModuleOptions['heartbeat'],
): ResolvedBroadcastOptions['heartbeat'] {
  if (heartbeat === false) return false;
  if (heartbeat !== undefined && !isObject(heartbeat)) {
    throw new BroadcastOptionsError(
      'heartbeat',
      '{ intervalMs?, jitter?, topic? } or false',
      heartbeat,
    );
  }
  const jitter = heartbeat?.jitter ?? D.DEFAULT_HEARTBEAT_JITTER;
  if (typeof jitter !== 'number' || !(jitter >= 0 && jitter < 1)) {
    throw new BroadcastOptionsError('heartbeat.jitter', 'a number in [0, 1)', jitter);
  }
  return {
    intervalMs: positiveInt(
      'heartbeat.intervalMs',
      heartbeat?.intervalMs,
      D.DEFAULT_HEARTBEAT_INTERVAL_MS,
    ),
    jitter,
    topic: nonEmptyName('heartbeat.topic', heartbeat?.topic ?? D.DEFAULT_HEARTBEAT_TOPIC),
  };
}

function resolveHealth(
  health: BroadcastModuleOptions['health'],
  heartbeat: ResolvedBroadcastOptions['heartbeat'],
): Pick<ResolvedBroadcastOptions, 'maxStalenessMs' | 'maxUnreadyMs' | 'outageGraceMs'> {
  const strict = health?.strict ?? false;
  if (typeof strict !== 'boolean')
    throw new BroadcastOptionsError('health.strict', 'true or false', strict);
  if (strict && health?.outageGraceMs !== undefined)
    throw new BroadcastOptionsError(
      'health.outageGraceMs',
      'no value with health.strict: true (strict readiness has no outage grace)',
      health.outageGraceMs,
    );
  // Without heartbeats an idle service receives nothing: a staleness bound would keep it unready.
  if (!heartbeat && health?.maxStalenessMs !== undefined) {
    throw new BroadcastOptionsError(
      'health.maxStalenessMs',
      'no value with heartbeat: false (readiness then needs no fresh message; enable heartbeats to bound staleness)',
      health.maxStalenessMs,
    );
  }
  return {
    maxStalenessMs: positiveInt(
      'health.maxStalenessMs',
      health?.maxStalenessMs,
      2 * (heartbeat ? heartbeat.intervalMs : D.DEFAULT_HEARTBEAT_INTERVAL_MS),
    ),
    maxUnreadyMs:
      health?.maxUnreadyMs === undefined
        ? undefined
        : positiveInt('health.maxUnreadyMs', health.maxUnreadyMs, 0),
    outageGraceMs: strict
      ? undefined
      : positiveInt('health.outageGraceMs', health?.outageGraceMs, D.DEFAULT_OUTAGE_GRACE_MS),
  };
}

const SHUTDOWN_ORDERS: readonly BroadcastShutdownOrder[] = ['before-http', 'after-http'];

function resolveShutdown(shutdown: unknown): BroadcastShutdownOrder {
  if (shutdown === undefined) return 'before-http';
  if (!SHUTDOWN_ORDERS.includes(shutdown as BroadcastShutdownOrder))
    throw new BroadcastOptionsError('shutdown', "'before-http' or 'after-http'", shutdown);
  return shutdown as BroadcastShutdownOrder;
}
