// Seeded chaos soak: several broadcast engines in child processes (PostgreSQL locks, MariaDB
// locks, lock-free) on the soak's own broker, a producer of sequence-numbered records, and
// random faults one after another for --minutes (SIGKILL + restart, pg_terminate_backend of a lock session,
// broker restart, a stray consumer in a live group, a producer clock an hour off, proxy stalls).
// At the end, per incarnation: no gap after ready, no replay, duplicates bounded; the broker's
// groups within the bound; describeGroups never showed two of our instances in one group.
//
//   npm run build:lib && npm run soak -- --minutes 30 --seed 42 [--out summary.json]
//
// Exits 0 when everything held, 1 on a violation, 2 on a usage error. Child processes import
// the BUILT library (env BROADCAST_LIB, else libs/broadcast/dist).
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import kafkajs from 'kafkajs';
import { startProxiedBroker } from '../test/support/proxied-broker.mjs';
import { FAULTS } from './soak/faults.mjs';
import { Slot } from './soak/fleet.mjs';
import { SeqProducer } from './soak/producer.mjs';
import { seededRandom } from './soak/random.mjs';
import { startGroupSampler } from './soak/sampler.mjs';
import { judgeIncarnation, violationsOf } from './soak/verdict.mjs';

const { Kafka, logLevel } = kafkajs;
const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '5' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000_000) },
    out: { type: 'string' },
  },
});
const minutes = Number(args.minutes);
const seed = Number(args.seed);
if (!(minutes > 0) || !Number.isInteger(seed)) {
  console.error('usage: soak.mjs --minutes <N> --seed <integer> [--out file.json]');
  process.exit(2);
}

const MAX_GROUPS = 6;
const SLOTS = [
  ['pg-a', 'postgres'],
  ['pg-b', 'postgres'],
  ['maria-a', 'mariadb'],
  ['free-a', 'none'],
  ['free-b', 'none'],
];
const began = Date.now();
const log = (line) =>
  console.log(`${((Date.now() - began) / 1000).toFixed(1).padStart(7)}s ${line}`);
const rnd = seededRandom(seed);
const prefix = `soak.${seed}.${began.toString(36)}.`;
// PostgreSQL and MariaDB locks do not see each other, so the MariaDB instances use a prefix of
// their own (their own groups and topic), as a fleet on another database would.
const mariaPrefix = `${prefix}m.`;
const topic = `${prefix}seq`;
const topics = [topic, `${mariaPrefix}seq`];

log(`soak: ${minutes} min, seed ${seed}, prefix ${prefix}`);
const broker = await startProxiedBroker({ dirPrefix: 'soak-kafka-' });
log(`broker up: direct ${broker.direct}, instances via proxy ${broker.proxied}`);
const admin = new Kafka({
  clientId: 'soak-admin',
  brokers: broker.direct,
  logLevel: logLevel.NOTHING,
}).admin();
await admin.connect();
// Not kafkajs's waitForLeaders: it gives up on UNKNOWN_TOPIC_OR_PARTITION under load.
await admin.createTopics({ topics: topics.map((t) => ({ topic: t, numPartitions: 1 })) });
for (let tries = 0; ; tries++) {
  const meta = await admin.fetchTopicMetadata({ topics }).catch(() => undefined);
  if (
    meta?.topics.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))
  )
    break;
  if (tries > 300) throw new Error(`no leaders for ${topics.join(', ')}`);
  await new Promise((resolve) => setTimeout(resolve, 100));
}
const producer = new SeqProducer(broker.direct, topics, 25);
await producer.start();

const baseConfig = {
  brokers: broker.proxied,
  prefix,
  topics: ['seq'],
  maxGroups: MAX_GROUPS,
  consumer: { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 500, maxWaitTimeMs: 100 },
  lockCheckIntervalMs: 500,
  startupTimeoutMs: 120_000,
  statePollMs: 50,
};
const slots = SLOTS.map(
  ([name, lock]) =>
    new Slot(name, lock, lock === 'mariadb' ? { ...baseConfig, prefix: mariaPrefix } : baseConfig),
);

async function waitReady(inc, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (inc.readyAt === undefined) {
    if (inc.failed || !inc.alive)
      throw new Error(
        `${inc.name}#${inc.number} failed to start: ${inc.failed ?? JSON.stringify(inc.exit)}`,
      );
    if (Date.now() > deadline)
      throw new Error(`${inc.name}#${inc.number} not ready after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function waitAllReady(timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  while (!slots.every((s) => s.current.alive && s.current.state === 'ready')) {
    if (Date.now() > deadline)
      throw new Error(
        `not all ready after ${timeoutMs} ms: ${slots.map((s) => `${s.name}=${s.current.state}`).join(', ')}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const ctx = {
  rnd,
  slots,
  broker,
  producer,
  topicOf: (slot) => (slot.lock === 'mariadb' ? topics[1] : topic),
  admin,
  waitReady,
  waitAllReady,
};
const sampler = startGroupSampler(admin, prefix);
const faultLog = [];
const problems = [];
let exitCode = 0;
try {
  for (const slot of slots) slot.spawn();
  await Promise.all(slots.map((s) => waitReady(s.current)));
  log(
    `all ${slots.length} instances ready: ${slots.map((s) => `${s.name}→${s.current.states.at(-1)?.groupId?.slice(prefix.length)}`).join(', ')}`,
  );

  // Every kind once in a seeded order, then seeded random picks; one fault at a time.
  const kinds = Object.keys(FAULTS);
  const plan = rnd.shuffle(kinds);
  const faultsUntil = Date.now() + minutes * 60_000;
  while (Date.now() < faultsUntil) {
    const kind = plan.shift() ?? rnd.pick(kinds);
    const at = Date.now();
    try {
      const line = await FAULTS[kind](ctx);
      faultLog.push({ kind, at, ms: Date.now() - at, line });
      log(`fault ${kind}: ${line}`);
    } catch (error) {
      problems.push(`fault ${kind}: ${error instanceof Error ? error.message : String(error)}`);
      log(`fault ${kind} FAILED: ${error instanceof Error ? error.message : String(error)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, rnd.int(1_500, 4_000)));
  }

  log('faults over; waiting for every instance to be ready');
  await waitAllReady(90_000).catch((error) => problems.push(error.message));
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  await producer.stop();
  const lastAcked = producer.sent.findLast((s) => s.ackedAt !== undefined)?.seq ?? -1;
  const deadline = Date.now() + 60_000;
  while (
    !slots.every((s) => s.current.deliveries.some((d) => d.seq === lastAcked)) &&
    Date.now() < deadline
  )
    await new Promise((resolve) => setTimeout(resolve, 100));
  const groupsAtEnd = (await admin.listGroups()).groups.filter((g) =>
    g.groupId.startsWith(prefix),
  ).length;
  log(`drained up to seq ${lastAcked}; ${groupsAtEnd} groups on the broker`);

  const stops = await Promise.all(slots.map((s) => s.current.stop()));
  stops.forEach((exit, i) => {
    if (exit?.code !== 0)
      problems.push(`${slots[i].name} graceful stop exited ${JSON.stringify(exit)}`);
  });
  const report = await sampler.stop();
  if (report.violations.length > 0)
    problems.push(
      `describeGroups showed two of our instances in one group ${report.violations.length} time(s): ${JSON.stringify(report.violations.slice(0, 3))}`,
    );
  // The bound: every pool (PostgreSQL, MariaDB, lock-free) holds at most maxGroups groups.
  for (const [pool, n] of Object.entries(report.maxGroupsPerPool))
    if (n > MAX_GROUPS) problems.push(`${n} groups at once in pool ${pool} (bound ${MAX_GROUPS})`);

  const results = slots.flatMap((s) =>
    s.incarnations.map((inc) => judgeIncarnation(inc, producer.sent, inc === s.current)),
  );
  for (const r of results) for (const why of violationsOf(r)) problems.push(`${r.name}: ${why}`);
  const count = (kind) => faultLog.filter((f) => f.kind === kind).length;
  const summary = {
    seed,
    minutes,
    durationS: Math.round((Date.now() - began) / 1000),
    instances: slots.length,
    incarnations: results.length,
    published: producer.sent.length,
    acked: producer.sent.filter((s) => s.ackedAt !== undefined).length,
    failedSends: producer.failedSends,
    skewedSent: producer.skewedSent,
    faults: Object.fromEntries(Object.keys(FAULTS).map((k) => [k, count(k)])),
    deliveries: results.reduce((n, r) => n + r.received, 0),
    gaps: results.reduce((n, r) => n + r.gaps.length, 0),
    replayed: results.reduce((n, r) => n + r.replayed, 0),
    duplicates: results.reduce((n, r) => n + r.duplicates, 0),
    maxDuplicatesPerIncarnation: Math.max(0, ...results.map((r) => r.duplicates)),
    groupsAtEnd,
    maxGroupsSampled: report.maxGroups,
    maxGroupsPerPool: Object.fromEntries(
      Object.entries(report.maxGroupsPerPool).map(([pool, n]) => [pool.slice(prefix.length), n]),
    ),
    describeSamples: report.samples,
    twoInstancesInOneGroup: report.violations.length,
    lockFreeOverlaps: report.lockFreeOverlaps.length,
    longestLockFreeOverlapMs: Math.max(0, ...report.lockFreeOverlaps.map((o) => o.ms)),
    sameInstanceDoubleMembers: report.sameInstanceDoubles,
    violations: problems,
  };
  for (const r of results)
    log(
      `  ${r.name}: ready=${r.ready} killed=${r.killed} received=${r.received} gaps=${r.gaps.length} replayed=${r.replayed} duplicates=${r.duplicates}`,
    );
  for (const p of problems) log(`VIOLATION ${p}`);
  console.log(`SOAK-SUMMARY ${JSON.stringify(summary)}`);
  if (args.out) writeFileSync(args.out, JSON.stringify({ summary, results, faultLog }, null, 2));
  exitCode = problems.length > 0 ? 1 : 0;
} catch (error) {
  log(`soak aborted: ${error instanceof Error ? error.stack : String(error)}`);
  exitCode = 1;
} finally {
  await sampler.stop().catch(() => undefined);
  await producer.stop().catch(() => undefined);
  for (const s of slots) for (const inc of s.incarnations) if (inc.alive) inc.child.kill('SIGKILL');
  await admin.disconnect().catch(() => undefined);
  await broker.stop();
}
process.exit(exitCode);
