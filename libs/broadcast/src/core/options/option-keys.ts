import { BroadcastOptionsError } from '../../errors/broadcast-options.error.js';
import type { BroadcastKafkaOptions } from '../../interfaces/broadcast-kafka-options.interface.js';
import type {
  BroadcastConsumerOptions,
  BroadcastHealthOptions,
  BroadcastHeartbeatOptions,
  BroadcastLockOptions,
  BroadcastModuleOptions,
  BroadcastTopicOptions,
} from '../../interfaces/broadcast-module-options.interface.js';
import { isObject } from './option-checks.js';

// A misspelled key is refused at start-up, naming the key meant: `topicPrefx` would otherwise
// be ignored, and the engine would run with no prefix in the shared default pool. Only the
// library's own option shapes are checked; objects handed on to others (kafka.ssl and kafka.sasl
// to the client, lock.provider, replay's topic names, functions) may carry any key.

type Section<T> = Exclude<T, false | undefined>;

/** Every key of T, listed once: TypeScript refuses a missing or an extra one. */
function keysOf<T>(all: Record<keyof Required<T>, true>): readonly string[] {
  return Object.keys(all);
}

/** The keys accepted at each level of the options ('' is the top). */
const KNOWN: Readonly<Record<string, readonly string[]>> = {
  '': keysOf<BroadcastModuleOptions>({
    kafka: true,
    topicPrefix: true,
    groupBaseName: true,
    lock: true,
    maxGroups: true,
    heartbeat: true,
    handlerTimeoutMs: true,
    startupTimeoutMs: true,
    health: true,
    shutdown: true,
    waitForReady: true,
    consumer: true,
    topics: true,
    instanceId: true,
    roster: true,
    receipts: true,
    replay: true,
    telemetry: true,
    onHandlerError: true,
    deadLetter: true,
    maxPendingRetries: true,
  }),
  kafka: keysOf<BroadcastKafkaOptions>({
    client: true,
    groupProtocol: true,
    brokers: true,
    clientId: true,
    ssl: true,
    sasl: true,
    connectionTimeoutMs: true,
    requestTimeoutMs: true,
    retry: true,
    retries: true,
    logLevel: true,
  }),
  'kafka.retry': keysOf<Section<BroadcastKafkaOptions['retry']>>({
    retries: true,
    initialRetryTimeMs: true,
    maxRetryTimeMs: true,
  }),
  lock: keysOf<BroadcastLockOptions>({ provider: true, dataSource: true, checkIntervalMs: true }),
  heartbeat: keysOf<BroadcastHeartbeatOptions>({ intervalMs: true, jitter: true, topic: true }),
  consumer: keysOf<BroadcastConsumerOptions>({
    sessionTimeoutMs: true,
    heartbeatIntervalMs: true,
    maxWaitTimeMs: true,
    metadataMaxAgeMs: true,
  }),
  topics: keysOf<BroadcastTopicOptions>({ numPartitions: true, replicationFactor: true }),
  health: keysOf<BroadcastHealthOptions>({
    maxStalenessMs: true,
    maxUnreadyMs: true,
    outageGraceMs: true,
    strict: true,
  }),
  roster: keysOf<Section<BroadcastModuleOptions['roster']>>({ intervalMs: true }),
  receipts: keysOf<Section<BroadcastModuleOptions['receipts']>>({ topic: true }),
  telemetry: keysOf<Section<BroadcastModuleOptions['telemetry']>>({ traces: true, metrics: true }),
  deadLetter: keysOf<Section<BroadcastModuleOptions['deadLetter']>>({ topic: true }),
};

/**
 * Throws a BroadcastOptionsError for the first key, at any level of the library's own option
 * shapes, that the options do not have, naming the closest known key when one is close.
 * Levels whose value is not an object are left to the value checks.
 */
export function refuseUnknownKeys(options: object): void {
  for (const [path, known] of Object.entries(KNOWN)) {
    const value = path === '' ? options : valueAt(options, path);
    if (!isObject(value)) continue;
    for (const key of Object.keys(value)) {
      if (known.includes(key)) continue;
      const option = path === '' ? key : `${path}.${key}`;
      const meant = closest(key, known);
      throw BroadcastOptionsError.unknownKey(
        option,
        meant && (path === '' ? meant : `${path}.${meant}`),
        known,
      );
    }
  }
}

function valueAt(options: object, path: string): unknown {
  let value: unknown = options;
  for (const part of path.split('.')) value = isObject(value) ? value[part] : undefined;
  return value;
}

/**
 * The known key nearest to `key` when it is near enough to be what was meant: the same word in
 * another case (clientID), or a few edits away (topicPrefx, interval for intervalMs).
 */
export function closest(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (!best || distance < best.distance) best = { key: candidate, distance };
  }
  const near = Math.max(2, Math.floor(key.length / 3));
  return best && best.distance <= near ? best.key : undefined;
}

/** Levenshtein distance: insertions, deletions and substitutions. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, substitution);
    }
    previous = row;
  }
  return previous[b.length]!;
}
