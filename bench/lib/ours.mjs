// Our side of every benchmark: BroadcastEngine from the built library (dist), as an application uses it.
// BENCH_LIB=<path to another build's index.js> measures that build instead (A/B of a library change).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { engineLogger, now } from './common.mjs';

export const LIB_SPECIFIER = process.env.BENCH_LIB
  ? pathToFileURL(resolve(process.env.BENCH_LIB)).href
  : 'nestjs-kafka-broadcast';
const lib = await import(LIB_SPECIFIER);
export const { BroadcastEngine, createAdvisoryLockProvider } = lib;

export const HEARTBEAT_TOPIC = 'broadcast.heartbeat.v1';

/**
 * A BroadcastEngine with the defaults an application gets, except what `overrides` says.
 * `lock`: 'postgres' (needs `dataSource`) or 'none'.
 */
export function createEngine({
  brokers,
  prefix,
  lock = 'postgres',
  dataSource,
  clientId = 'bench-ours',
  ...overrides
}) {
  return new BroadcastEngine(
    {
      kafka: { brokers, clientId },
      topicPrefix: prefix,
      lock: lock === 'none' ? false : {},
      ...overrides,
    },
    { dataSource, logger: engineLogger },
  );
}

/** Both topics an engine with one handler on `topic` reads (the raw baseline subscribes to the same). */
export const engineTopics = (prefix, topic) => [
  prefix + topic,
  prefix + HEARTBEAT_TOPIC,
];

/**
 * Timestamps around the engine's steps, taken from outside by wrapping the instance's collaborators
 * (admin, lock binding, consumer factory). Adds a few µs; call before start().
 */
export function instrument(engine) {
  const marks = {
    spans: [],
    joined: [],
    consumerStart: [],
    consumerRunning: [],
  };
  const wrap = (name, target, method) => {
    const original = target[method].bind(target);
    target[method] = async (...args) => {
      const span = { name, start: now(), end: undefined };
      marks.spans.push(span);
      try {
        return await original(...args);
      } finally {
        span.end = now();
      }
    };
  };
  const admin = engine.kafka.admin;
  wrap('ensureTopics', admin, 'ensureTopics');
  wrap('deleteGroup', admin, 'deleteGroup');
  wrap('latestOffsets', admin, 'latestOffsets');
  wrap('describeGroup', admin, 'describeGroup');
  wrap('lock', engine.locks, 'tryLock');
  // PostgreSQL locks the lowest free id in one statement; LockBinding exposes it as a getter.
  const lowest = engine.locks.tryLockLowest;
  if (lowest) {
    const holder = { tryLockLowest: lowest };
    wrap('lock', holder, 'tryLockLowest');
    Object.defineProperty(engine.locks, 'tryLockLowest', { value: holder.tryLockLowest, configurable: true });
  }
  const create = engine.kafka.createGroupConsumer.bind(engine.kafka);
  engine.kafka.createGroupConsumer = (spec) => {
    // spec.listener is the GroupMembership; shadow its joined() to see GROUP_JOIN.
    const listener = spec.listener;
    const joined = listener.joined.bind(listener);
    listener.joined = (...args) => {
      marks.joined.push(now());
      return joined(...args);
    };
    const port = create(spec);
    const start = port.start.bind(port);
    port.start = async () => {
      marks.consumerStart.push(now());
      try {
        return await start();
      } finally {
        marks.consumerRunning.push(now());
      }
    };
    return port;
  };
  return marks;
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
  const known = [
    'ensureTopics',
    'lock',
    'deleteGroup',
    'offsetsSnapshot',
    'join',
    'verify',
  ].reduce((s, k) => s + (Number.isFinite(result[k]) ? result[k] : 0), 0);
  result.gaps = result.total - known;
  return result;
}

/** The kafkajs member id of the engine's current membership (for crash bookkeeping). */
export function engineMemberId(engine) {
  return engine.reader?.claim?.value?.membership?.memberId;
}
