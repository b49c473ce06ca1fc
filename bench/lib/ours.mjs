// Our side of every benchmark: BroadcastEngine from the built library (dist), as an application uses it.
// BENCH_LIB=<path to another build's index.js> measures that build instead (A/B of a library change).
//
// The phase instrumentation never reaches into the engine: the bench builds the engine's Kafka
// client and lock provider itself and hands them in (`deps.kafka`, `lock.provider`), wrapped. Those
// two are loaded from the build's internal modules, next to its index.js (bench only, not an API).
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { engineLogger, now } from './common.mjs';

export const LIB_SPECIFIER = process.env.BENCH_LIB
  ? pathToFileURL(resolve(process.env.BENCH_LIB)).href
  : 'nestjs-kafka-broadcast';

export const HEARTBEAT_TOPIC = 'broadcast.heartbeat.v1';
/** Read by every engine with receipts on (the default), so R subscribes to it too. */
export const RECEIPTS_TOPIC = 'broadcast.receipts.v1';

/** The recorder of each engine a build's createEngine() made; instrument() switches it on. */
const recorders = new WeakMap();

/**
 * Loads one build (its index.js specifier) with a createEngine() bound to it. Builds from before
 * `lock.provider` existed cannot be instrumented this way.
 */
export async function loadBuild(specifier) {
  const lib = await import(specifier);
  const dir = dirname(fileURLToPath(import.meta.resolve(specifier)));
  const internal = (path) => import(pathToFileURL(join(dir, path)).href);
  const { createAdvisoryLockProvider } = await internal('locks/advisory-lock.factory.js');
  const { KafkajsAdapter } = await internal('adapters/kafkajs/kafkajs.adapter.js');
  const { resolveBroadcastOptions } = await internal('core/options/broadcast-options.resolver.js');
  // Builds from before the second adapter have none; only the platformatic sides need it.
  const platformatic = await internal('adapters/platformatic/platformatic.adapter.js').catch(
    () => undefined,
  );
  // Only where @confluentinc/kafka-javascript is installed (scripts/confluent-client.mjs), and in
  // builds that have the adapter: the confluent sides (sides.mjs) need it.
  const confluent = await internal('adapters/confluent/confluent.adapter.js').catch(
    () => undefined,
  );
  /** The adapter the engine would load for `kafka.client`, made here so that it can be wrapped. */
  function newAdapter(client, resolved) {
    if (client === 'kafkajs') return new KafkajsAdapter(resolved, engineLogger);
    if (client === 'platformatic') {
      if (!platformatic) throw new Error(`${specifier} has no @platformatic/kafka adapter`);
      // Brokers are a list here (the engine's loader resolves a function first). Builds before
      // #36 took them as a second argument (options, brokers, logger, probe).
      const { PlatformaticAdapter } = platformatic;
      return PlatformaticAdapter.length >= 4
        ? new PlatformaticAdapter(resolved, resolved.kafka.brokers, engineLogger)
        : new PlatformaticAdapter(resolved, engineLogger);
    }
    if (client === 'confluent') {
      if (!confluent) throw new Error(`${specifier} has no loadable confluent adapter`);
      return new confluent.ConfluentAdapter(resolved, engineLogger);
    }
    throw new Error(`unknown client ${client}`);
  }

  /**
   * A BroadcastEngine with the defaults an application gets, except what `overrides` says.
   * `lock`: 'postgres' (needs `dataSource`) or 'none'. `client`: the adapter, 'kafkajs',
   * 'platformatic' or 'confluent' (the engine's `kafka.client` option). `kafka`: more of the engine's `kafka`
   * options (for example `groupProtocol`). `tap`: called with the (wrapped) adapter before the
   * engine gets it, to time more of its calls (#8 traces sends and records with it).
   */
  function createEngine({
    brokers,
    prefix,
    lock = 'postgres',
    dataSource,
    clientId = 'bench-ours',
    client = 'kafkajs',
    kafka = {},
    tap,
    ...overrides
  }) {
    const recorder = newRecorder();
    const options = {
      // `client` always: the library's default is @platformatic/kafka when both are installed.
      kafka: { brokers, clientId, client, ...kafka },
      topicPrefix: prefix,
      // The same provider the engine picks for a DataSource, wrapped for the phase marks.
      lock:
        lock === 'none'
          ? false
          : {
              provider: ({ namespace, logger }) =>
                recorder.locks(createAdvisoryLockProvider(dataSource, namespace, logger)),
            },
      ...overrides,
    };
    const adapter = recorder.kafka(newAdapter(client, resolveBroadcastOptions(options)));
    const engine = new lib.BroadcastEngine(options, {
      kafka: tap ? tap(adapter) : adapter,
      logger: engineLogger,
    });
    recorders.set(engine, recorder);
    return engine;
  }
  return { BroadcastEngine: lib.BroadcastEngine, createAdvisoryLockProvider, createEngine };
}

export const { BroadcastEngine, createAdvisoryLockProvider, createEngine } =
  await loadBuild(LIB_SPECIFIER);

/**
 * The topics an engine with default options and one handler on `topic` reads: the data topic, the
 * heartbeat topic and the receipts topic. The raw baseline subscribes to the same, and benches
 * create all of them before the clock starts (until 2026-12-02 the receipts topic was left out:
 * ours then read one topic more than R and created it during the first timed start).
 */
export const engineTopics = (prefix, topic) => [
  prefix + topic,
  prefix + HEARTBEAT_TOPIC,
  prefix + RECEIPTS_TOPIC,
];

/**
 * Timestamps around the engine's steps (admin calls, lock attempts, consumer start and join), from
 * the wrapped Kafka client and lock provider createEngine() handed in. Adds a few µs; call before
 * start().
 */
export function instrument(engine) {
  const recorder = recorders.get(engine);
  if (!recorder) throw new Error('instrument(): the engine was not made by createEngine()');
  recorder.enabled = true;
  return recorder.marks;
}

function newRecorder() {
  const marks = {
    spans: [],
    joined: [],
    consumerStart: [],
    consumerRunning: [],
  };
  const recorder = { enabled: false, marks };
  const wrap = (name, target, method) => {
    const original = target[method].bind(target);
    target[method] = async (...args) => {
      if (!recorder.enabled) return original(...args);
      const span = { name, start: now(), end: undefined };
      marks.spans.push(span);
      try {
        return await original(...args);
      } finally {
        span.end = now();
      }
    };
  };
  recorder.locks = (provider) => {
    wrap('lock', provider, 'tryLock');
    // PostgreSQL locks the lowest free id in one statement.
    if (provider.tryLockLowest) wrap('lock', provider, 'tryLockLowest');
    return provider;
  };
  recorder.kafka = (kafka) => {
    const admin = kafka.admin;
    wrap('ensureTopics', admin, 'ensureTopics');
    wrap('deleteGroup', admin, 'deleteGroup');
    wrap('latestOffsets', admin, 'latestOffsets');
    wrap('describeGroup', admin, 'describeGroup');
    const create = kafka.createGroupConsumer.bind(kafka);
    kafka.createGroupConsumer = (spec) => {
      // spec.listener is the GroupMembership; shadow its joined() to see GROUP_JOIN.
      const listener = spec.listener;
      const joined = listener.joined.bind(listener);
      listener.joined = (...args) => {
        if (recorder.enabled) marks.joined.push(now());
        return joined(...args);
      };
      const port = create(spec);
      const start = port.start.bind(port);
      port.start = async () => {
        if (recorder.enabled) marks.consumerStart.push(now());
        try {
          return await start();
        } finally {
          if (recorder.enabled) marks.consumerRunning.push(now());
        }
      };
      return port;
    };
    return kafka;
  };
  return recorder;
}

/**
 * Splits one start() into phases, from `t0` (start called) to `ready` (start resolved).
 * Only meaningful for a start that claimed its first candidate (the single-instance case).
 */
export function phases(marks, t0, ready) {
  const first = (name) => marks.spans.find((s) => s.name === name);
  const last = (name) => marks.spans.filter((s) => s.name === name).at(-1);
  const ensure = first('ensureTopics');
  const lock = last('lock');
  const del = last('deleteGroup');
  const offsets = last('latestOffsets');
  const joined = marks.joined.at(-1);
  const consumerStart = marks.consumerStart.at(-1);
  const describes = marks.spans.filter(
    (s) => s.name === 'describeGroup' && s.start >= (joined ?? Infinity),
  );
  const d = (a, b) => (a !== undefined && b !== undefined ? b - a : NaN);
  const result = {
    ensureTopics: d(ensure?.start, ensure?.end),
    lock: d(lock?.start, lock?.end),
    deleteGroup: d(del?.start, del?.end),
    offsetsSnapshot: d(offsets?.start, offsets?.end),
    // consumer.connect + subscribe + run up to GROUP_JOIN (JoinGroup x2, SyncGroup)
    join: d(consumerStart, joined),
    // describeGroups until the only member is us
    verify: d(joined, ready),
    describeCalls: describes.length,
    lockProbes: marks.spans.filter((s) => s.name === 'lock').length,
    total: ready - t0,
  };
  const known = ['ensureTopics', 'lock', 'deleteGroup', 'offsetsSnapshot', 'join', 'verify'].reduce(
    (s, k) => s + (Number.isFinite(result[k]) ? result[k] : 0),
    0,
  );
  result.gaps = result.total - known;
  return result;
}

/** The kafkajs member id of the engine's current membership (for crash bookkeeping). */
export function engineMemberId(engine) {
  return engine.reader?.claim?.value?.membership?.memberId;
}
