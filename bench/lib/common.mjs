// Shared helpers of the benchmark runner: broker/postgres discovery, clients, stats, cleanup.
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import kafkajs from 'kafkajs';

const { Kafka, logLevel } = kafkajs;

export const BENCH_DIR = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const REPO_ROOT = resolve(BENCH_DIR, '..');
export const now = () => performance.now();
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The engine's consumer defaults, applied to the raw kafkajs baseline too. */
export const CONSUMER_DEFAULTS = Object.freeze({
  sessionTimeout: 10_000,
  heartbeatInterval: 1_000,
  maxWaitTimeInMs: 250,
  // Also what the engine sets (kafkajs defaults: 60000 / 300000); neither is on a measured path.
  rebalanceTimeout: 10_000,
  metadataMaxAge: 30_000,
});

export const PG = Object.freeze({
  type: 'postgres',
  host: process.env.PGHOST ?? '127.0.0.1',
  port: Number(process.env.PGPORT ?? 5432),
  username: process.env.PGUSER ?? 'postgres',
  database: process.env.PGDATABASE ?? 'test',
});

// ---------------------------------------------------------------- logging
let verbose = false;
export function setVerbose(v) {
  verbose = v;
}
export function info(message) {
  process.stderr.write(`[bench] ${message}\n`);
}
export function debug(message) {
  if (verbose) process.stderr.write(`[bench:debug] ${message}\n`);
}

/** Counts what the engines and clients report; prints only errors (and everything with --verbose). */
export const diagnostics = { warnings: 0, errors: 0, samples: [] };
function note(kind, message) {
  diagnostics[kind === 'error' ? 'errors' : 'warnings']++;
  if (diagnostics.samples.length < 30)
    diagnostics.samples.push(`${kind}: ${message.slice(0, 300)}`);
  if (verbose || kind === 'error')
    process.stderr.write(`[bench:${kind}] ${message.slice(0, 500)}\n`);
}
export const engineLogger = {
  log: (m) => debug(m),
  debug: () => {},
  warn: (m) => note('warn', m),
  error: (m) => note('error', m),
};
/** kafkajs logCreator for raw clients; MEMBER_ID_REQUIRED (KIP-394's normal first join) is not an error. */
const rawLogCreator =
  () =>
  ({ namespace, level, log }) => {
    const { message, ...extra } = log;
    if (
      extra.type === 'MEMBER_ID_REQUIRED' ||
      message.includes('valid member id')
    )
      return;
    if (namespace === 'Connection' && message.startsWith('Response ')) return;
    if (level === logLevel.ERROR)
      note('error', `[kafkajs ${namespace}] ${message}`);
    else if (level === logLevel.WARN)
      note('warn', `[kafkajs ${namespace}] ${message}`);
  };

// ---------------------------------------------------------------- environment
/** KAFKA_BROKERS, else the CLI broker of .kafka/state.json if it answers, else a fresh one we stop at the end. */
export async function findBroker() {
  const cluster = await import('../../scripts/kafka-cluster.mjs');
  if (process.env.KAFKA_BROKERS) {
    return {
      brokers: process.env.KAFKA_BROKERS.split(','),
      source: 'env KAFKA_BROKERS',
      version: process.env.KAFKA_VERSION ?? 'unknown (external broker)',
      stop: async () => {},
    };
  }
  const state = await cluster.readState();
  if (state && (await cluster.clusterAnswers(state.brokers))) {
    return {
      brokers: state.brokers,
      source: '.kafka/state.json (shared CLI broker)',
      version: state.version,
      stop: async () => {},
    };
  }
  info('no broker found; starting a single-node Kafka for this run');
  const dir = await mkdtemp(join(os.tmpdir(), 'bench-kafka-'));
  const owned = await cluster.startCluster({ nodes: 1, dir });
  return {
    brokers: owned.brokers,
    source: `started by the bench (${dir})`,
    version: owned.version,
    stop: () => owned.stop(),
  };
}

export function machineInfo() {
  const cpus = os.cpus();
  return {
    hostname: os.hostname(),
    platform: `${os.platform()} ${os.release()}`,
    arch: os.arch(),
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    memTotalMB: Math.round(os.totalmem() / 2 ** 20),
    node: process.version,
    loadavg: os.loadavg().map((l) => +l.toFixed(2)),
  };
}

export function packageVersion(name) {
  try {
    return JSON.parse(
      readFileSync(
        join(REPO_ROOT, 'node_modules', name, 'package.json'),
        'utf8',
      ),
    ).version;
  } catch {
    return 'unknown';
  }
}

/** Which library code was measured: HEAD plus the files of libs/broadcast/src that differ from it. */
export function libraryRevision() {
  const git = (...args) =>
    execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  try {
    const dirty = git('status', '--porcelain', '--', 'libs/broadcast/src')
      .split('\n')
      .filter(Boolean);
    return { commit: git('rev-parse', 'HEAD'), dirtyFiles: dirty };
  } catch (error) {
    return { commit: 'unknown', error: String(error) };
  }
}

/** Other JVMs / node processes on the box are noise for every timing: record them. */
export function otherLoad() {
  try {
    const out = execFileSync(
      'ps',
      ['-eo', 'pid,pcpu,rss,comm', '--sort=-pcpu'],
      { encoding: 'utf8' },
    );
    return out
      .split('\n')
      .slice(1, 8)
      .map((l) => l.trim())
      .filter(Boolean);
  } catch {
    return [];
  }
}

export function newRunId() {
  const d = new Date();
  const stamp = d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return `bench-${stamp}-${randomBytes(2).toString('hex')}`;
}

// ---------------------------------------------------------------- clients
export function rawKafka(brokers, clientId) {
  return new Kafka({
    brokers,
    clientId,
    logLevel: logLevel.WARN,
    logCreator: rawLogCreator,
  });
}

/** A raw producer with the engine's partitioner (kafkajs 2's default), which also silences its v2 notice. */
export function rawProducer(kafka, options = {}) {
  return kafka.producer({
    createPartitioner: kafkajs.Partitioners.DefaultPartitioner,
    ...options,
  });
}

export const rawGroupId = (prefix) => `${prefix}svc-${randomUUID()}`;

/**
 * Baseline R: one raw kafkajs consumer with a fresh random group, fromBeginning false.
 * `ready` resolves at the first FETCH event after GROUP_JOIN (offsets resolved and a fetch done);
 * `marks.listOffsets` is when kafkajs's ListOffsets answer arrived after the join, i.e. the
 * moment its start position was fixed (a lower bound of "ready").
 */
export function startRawConsumer({
  brokers,
  prefix,
  topics,
  onMessage,
  eachBatch,
  consumer: extra = {},
  clientId = 'bench-raw',
}) {
  const kafka = rawKafka(brokers, clientId);
  const groupId = rawGroupId(prefix);
  const consumer = kafka.consumer({ groupId, ...CONSUMER_DEFAULTS, ...extra });
  const marks = {
    t0: now(),
    connected: undefined,
    joined: undefined,
    listOffsets: undefined,
    fetchStart: undefined,
    ready: undefined,
  };
  let memberId;
  let resolveReady;
  const ready = new Promise((r) => (resolveReady = r));
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    memberId = payload.memberId;
    marks.joined ??= now();
  });
  consumer.on(consumer.events.FETCH_START, () => {
    if (marks.joined !== undefined) marks.fetchStart ??= now();
  });
  consumer.on(consumer.events.REQUEST, ({ payload }) => {
    if (marks.joined !== undefined && payload.apiName === 'ListOffsets')
      marks.listOffsets ??= now();
  });
  consumer.on(consumer.events.FETCH, () => {
    if (marks.joined !== undefined && marks.ready === undefined) {
      marks.ready = now();
      resolveReady();
    }
  });
  const started = (async () => {
    await consumer.connect();
    marks.connected = now();
    await consumer.subscribe({ topics, fromBeginning: false });
    await consumer.run(
      eachBatch
        ? { eachBatchAutoResolve: false, eachBatch }
        : {
            eachMessage: async ({ topic, partition, message }) =>
              onMessage?.(topic, partition, message),
          },
    );
  })();
  started.catch((e) =>
    note('error', `raw consumer start failed: ${e.message}`),
  );
  return {
    groupId,
    consumer,
    marks,
    get memberId() {
      return memberId;
    },
    ready: Promise.race([ready, started.then(() => ready)]),
    stop: () => consumer.disconnect().catch(() => undefined),
  };
}

/** A postgres TypeORM DataSource, initialized (the application has it before the engine starts). */
export async function newDataSource(poolMax = 4) {
  const { DataSource } = await import('typeorm');
  const ds = new DataSource({ ...PG, extra: { max: poolMax } });
  await ds.initialize();
  return ds;
}

export async function postgresVersion() {
  try {
    const ds = await newDataSource(1);
    try {
      const [{ version }] = await ds.query('select version() as version');
      return version;
    } finally {
      await ds.destroy();
    }
  } catch {
    return undefined;
  }
}

export async function withAdmin(brokers, fn) {
  const admin = rawKafka(brokers, 'bench-admin').admin();
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

export async function createTopics(brokers, topics, numPartitions = 1) {
  await withAdmin(brokers, (admin) =>
    admin.createTopics({
      waitForLeaders: true,
      topics: topics.map((topic) => ({ topic, numPartitions })),
    }),
  );
}

export async function groupsWithPrefix(admin, prefix) {
  const { groups } = await admin.listGroups();
  return groups
    .filter((g) => g.groupId.startsWith(prefix))
    .map((g) => g.groupId);
}

/**
 * Deletes every topic and consumer group whose name starts with `prefix`. Groups that still have a
 * member (a crashed process's, until its session times out) are retried until `groupWaitMs`.
 */
export async function cleanupPrefix(
  brokers,
  prefix,
  { groupWaitMs = 20_000 } = {},
) {
  return withAdmin(brokers, async (admin) => {
    const deadline = Date.now() + groupWaitMs;
    let groups = await groupsWithPrefix(admin, prefix);
    const found = groups.length;
    while (groups.length > 0) {
      try {
        await admin.deleteGroups(groups);
        groups = [];
      } catch (error) {
        // Some failed, typically a group whose crashed member's session has not expired yet.
        groups = await groupsWithPrefix(admin, prefix);
        if (Date.now() > deadline) {
          note(
            'warn',
            `cleanup: could not delete groups ${groups.join(', ')}: ${error.message}`,
          );
          break;
        }
        await sleep(500);
      }
    }
    const topics = (await admin.listTopics()).filter((t) =>
      t.startsWith(prefix),
    );
    if (topics.length > 0)
      await admin
        .deleteTopics({ topics })
        .catch((e) => note('warn', `cleanup topics: ${e.message}`));
    return {
      groupsDeleted: found - groups.length,
      groupsLeft: groups,
      topicsDeleted: topics.length,
    };
  });
}

// ---------------------------------------------------------------- stats
export function sorted(values) {
  return Float64Array.from(values).sort();
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(asc, p) {
  if (asc.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * asc.length);
  return asc[Math.min(asc.length - 1, Math.max(0, rank - 1))];
}

export function median(values) {
  const a = sorted(values);
  if (a.length === 0) return NaN;
  const m = a.length >> 1;
  return a.length % 2 ? a[m] : (a[m - 1] + a[m]) / 2;
}

/** min / median / max (+ mean, n) of repeated measurements. */
export function summary(values) {
  const a = sorted(values.filter((v) => Number.isFinite(v)));
  if (a.length === 0)
    return { n: 0, min: NaN, median: NaN, max: NaN, mean: NaN };
  return {
    n: a.length,
    min: round(a[0]),
    median: round(median(a)),
    max: round(a[a.length - 1]),
    mean: round(a.reduce((s, v) => s + v, 0) / a.length),
  };
}

export function round(v, digits = 2) {
  if (!Number.isFinite(v)) return v;
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

export function ratio(a, b) {
  return Number.isFinite(a) && Number.isFinite(b) && b !== 0
    ? round(a / b, 3)
    : NaN;
}

/** Sparse histogram of latencies at `resolution` ms: a lossless-enough form of 10⁴–10⁵ raw samples. */
export function histogram(values, resolution = 0.1) {
  const h = {};
  for (const v of values) {
    const k = (Math.round(v / resolution) * resolution).toFixed(1);
    h[k] = (h[k] ?? 0) + 1;
  }
  return h;
}

/** Runs `fn` until the condition holds or `timeoutMs` passes; returns whether it held. */
export async function waitFor(condition, timeoutMs, stepMs = 20) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await sleep(stepMs);
  }
  return !!(await condition());
}
