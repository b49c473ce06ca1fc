#!/usr/bin/env node
// What the kafkajs internals of the adapter (libs/broadcast/src/adapters/kafkajs) save over kafkajs's public
// admin calls, per call of a start: the topic check, the offsets snapshot, the delete of a group
// and the describe that verifies it, and a probe of an occupied id. Each case runs both ways in one
// process against one broker, alternating the order every repetition, and reports wall time
// (min / median / max, ms) and the Kafka requests each call sent (by API, counted on kafkajs's
// Connection). `internal` is the Cluster path, `public` kafkajs's admin calls, and `adapter` (the
// whole start only) what the kafkajs adapter does now. Uses the built library (npm run build:lib).
//
//   KAFKA_BROKERS=host:port node bench/internals.mjs [--reps=30] [--topics=3] [--out=bench/results/internals.json]
import './lib/request-counter.mjs';
import { writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import kafkajs from 'kafkajs';
import { requestCounts, resetRequestCounts } from './lib/request-counter.mjs';
import { BENCH_DIR, REPO_ROOT, libraryRevision, machineInfo, now, summary } from './lib/common.mjs';

const dist = join(REPO_ROOT, 'libs/broadcast/dist/esm/kafka');
const { adminWithCluster, clusterHasLeaders, readHighWatermarks } = await import(
  join(dist, 'kafkajs-cluster-offsets.js')
);

const { values: args } = parseArgs({
  options: {
    reps: { type: 'string', default: '30' },
    topics: { type: 'string', default: '3' },
    out: { type: 'string', default: join(BENCH_DIR, 'results', 'internals.json') },
  },
});
const reps = Number(args.reps);
const brokers = (process.env.KAFKA_BROKERS ?? '').split(',').filter(Boolean);
if (brokers.length === 0) throw new Error('KAFKA_BROKERS is required');
const prefix = `bench-int-${randomBytes(3).toString('hex')}-`;
// As a start reads them: the data topic, the heartbeat topic and the receipts topic.
const topics = Array.from({ length: Number(args.topics) }, (_, i) => `${prefix}t${i}`);
const kafka = new kafkajs.Kafka({ brokers, clientId: prefix, logLevel: kafkajs.logLevel.NOTHING });

// The two sides: the adapter's admin with its Cluster, and a plain admin (the public calls).
const internal = adminWithCluster(kafka);
if (!internal.cluster) throw new Error('this kafkajs has not the internals');
const coordinators = straightToCoordinator(internal.cluster);
const publicAdmin = kafka.admin();
await Promise.all([internal.admin.connect(), publicAdmin.connect()]);
await publicAdmin.createTopics({
  topics: topics.map((topic) => ({ topic })),
  waitForLeaders: true,
});
// One member in one group: the id an allocator probes and finds occupied.
const occupied = `${prefix}occupied-0`;
const member = kafka.consumer({ groupId: occupied, sessionTimeout: 10_000 });
await member.connect();
await member.subscribe({ topic: topics[0] });
let joined;
const hasJoined = new Promise((resolve) => (joined = resolve));
member.on(member.events.GROUP_JOIN, () => joined());
await member.run({ eachMessage: async () => {} });
await hasJoined;

/**
 * DeleteGroups and DescribeGroups sent straight to each group's coordinator, found once per group
 * through the admin's Cluster (findGroupCoordinator, findBroker, the Broker's own requests): what
 * adapters/kafkajs/kafkajs-group-coordinators.ts did until the adapter moved to the public calls.
 */
function straightToCoordinator(cluster) {
  const nodes = new Map();
  const coordinator = async (groupId) => {
    const nodeId = nodes.get(groupId);
    if (nodeId !== undefined) return cluster.findBroker({ nodeId });
    const broker = await cluster.findGroupCoordinator({ groupId });
    nodes.set(groupId, broker.nodeId);
    return broker;
  };
  return {
    async deleteGroup(groupId) {
      const { results } = await (await coordinator(groupId)).deleteGroups([groupId]);
      const failed = results.filter((r) => r.errorCode !== 0);
      if (failed.length > 0)
        throw Object.assign(new Error('Error in DeleteGroups'), { groups: failed });
    },
    async describeGroup(groupId) {
      const { groups } = await (await coordinator(groupId)).describeGroups({ groupIds: [groupId] });
      return groups[0];
    },
  };
}

const hasLeaders = (metadata) =>
  metadata.topics.length === topics.length &&
  metadata.topics.every((t) => t.partitions.every((p) => p.leader >= 0));
const notFound = (error) => {
  if (!error?.groups?.every((g) => g.errorCode === 69)) throw error;
};

/** Each case: [internal, public] calls; `before` runs untimed first (what precedes it in a start). */
const CASES = {
  topicCheck: {
    internal: () => clusterHasLeaders(internal.cluster, topics),
    public: async () => hasLeaders(await publicAdmin.fetchTopicMetadata({ topics })),
  },
  offsetsSnapshot: {
    before: {
      internal: () => clusterHasLeaders(internal.cluster, topics),
      public: () => publicAdmin.fetchTopicMetadata({ topics }),
    },
    internal: () => readHighWatermarks(internal.cluster, topics, false),
    public: () => Promise.all(topics.map((t) => publicAdmin.fetchTopicOffsets(t))),
  },
  deleteNewGroup: {
    internal: (g) => coordinators.deleteGroup(g).catch(notFound),
    public: (g) => publicAdmin.deleteGroups([g]).catch(notFound),
  },
  describeAfterDelete: {
    before: {
      internal: (g) => coordinators.deleteGroup(g).catch(notFound),
      public: (g) => publicAdmin.deleteGroups([g]).catch(notFound),
    },
    internal: (g) => coordinators.describeGroup(g),
    public: (g) => publicAdmin.describeGroups([g]),
  },
  // The admin's part of a start in lock mode, in its order: topic check, delete of the claimed
  // group, offsets snapshot, and the describe that verifies the join.
  startSequence: {
    internal: async (g) => {
      await clusterHasLeaders(internal.cluster, topics);
      await coordinators.deleteGroup(g).catch(notFound);
      await readHighWatermarks(internal.cluster, topics, false);
      await coordinators.describeGroup(g);
    },
    // What the adapter does since #22: the Cluster for the check and the snapshot, kafkajs's public
    // calls for the delete and the describe.
    adapter: async (g) => {
      await clusterHasLeaders(internal.cluster, topics);
      await internal.admin.deleteGroups([g]).catch(notFound);
      await readHighWatermarks(internal.cluster, topics, false);
      await internal.admin.describeGroups([g]);
    },
    public: async (g) => {
      hasLeaders(await publicAdmin.fetchTopicMetadata({ topics }));
      await publicAdmin.deleteGroups([g]).catch(notFound);
      await Promise.all(topics.map((t) => publicAdmin.fetchTopicOffsets(t)));
      await publicAdmin.describeGroups([g]);
    },
  },
  describeOccupied: {
    internal: () => coordinators.describeGroup(occupied),
    public: () => publicAdmin.describeGroups([occupied]),
  },
};

const SIDES = ['internal', 'adapter', 'public'];
const sidesOf = (c) => SIDES.filter((side) => side in c);
const samples = Object.fromEntries(
  Object.entries(CASES).map(([name, c]) => [
    name,
    Object.fromEntries(sidesOf(c).map((side) => [side, []])),
  ]),
);
// One untimed round of every case first (connections, metadata, coordinators found once).
for (const [name, c] of Object.entries(CASES))
  for (const side of sidesOf(c)) {
    const g = `${prefix}${name}-warm-${side}`;
    await c.before?.[side](g);
    await c[side](g);
  }
for (let rep = 0; rep < reps; rep++) {
  for (const [name, c] of Object.entries(CASES)) {
    // Every side goes first in turn.
    const sides = sidesOf(c);
    const order = sides.map((_, i) => sides[(i + rep) % sides.length]);
    for (const side of order) {
      // A group id never used before, as a start deletes one it has just claimed.
      const g = `${prefix}${name}-${rep}-${side}`;
      await c.before?.[side](g);
      resetRequestCounts();
      const t0 = now();
      await c[side](g);
      const ms = now() - t0;
      samples[name][side].push({ ms, requests: requestCounts() });
    }
  }
}

await member.disconnect();
await publicAdmin.deleteGroups([occupied]).catch(() => undefined);
await publicAdmin.deleteTopics({ topics }).catch(() => undefined);
await Promise.all([internal.admin.disconnect(), publicAdmin.disconnect()]);

/** The requests of the median-time sample, and the total per call (they hardly vary). */
function requestsOf(list) {
  const totals = list.map((s) => Object.values(s.requests).reduce((a, b) => a + b, 0));
  const byApi = {};
  for (const s of list)
    for (const [api, n] of Object.entries(s.requests)) byApi[api] = (byApi[api] ?? 0) + n;
  for (const api of Object.keys(byApi)) byApi[api] = +(byApi[api] / list.length).toFixed(2);
  return { perCall: summary(totals), byApiMean: byApi };
}

const results = Object.fromEntries(
  Object.entries(samples).map(([name, sides]) => [
    name,
    Object.fromEntries(
      Object.entries(sides).map(([side, list]) => [
        side,
        { ms: summary(list.map((s) => s.ms)), requests: requestsOf(list) },
      ]),
    ),
  ]),
);
const report = {
  date: new Date().toISOString(),
  machine: machineInfo(),
  library: libraryRevision(),
  kafkajs: (await import('kafkajs/package.json', { with: { type: 'json' } })).default.version,
  brokers: brokers.length,
  reps,
  topics: topics.length,
  results,
  // Per case and side: [ms, requests sent] of every timed call, in order.
  samples: Object.fromEntries(
    Object.entries(samples).map(([name, sides]) => [
      name,
      Object.fromEntries(
        Object.entries(sides).map(([side, list]) => [
          side,
          list.map((s) => [
            Math.round(s.ms * 100) / 100,
            Object.values(s.requests).reduce((a, b) => a + b, 0),
          ]),
        ]),
      ),
    ]),
  ),
};
// Indented, with each sample on one line.
writeFileSync(
  args.out,
  `${JSON.stringify(report, null, 2).replace(/\[\s+([\d.]+),\s+(\d+)\s+\]/g, '[$1, $2]')}\n`,
);
for (const [name, sides] of Object.entries(results)) {
  const line = (side) =>
    `${side.padEnd(8)} ${sides[side].ms.min} / ${sides[side].ms.median} / ${sides[side].ms.max} ms, ` +
    `${sides[side].requests.perCall.median} requests ${JSON.stringify(sides[side].requests.byApiMean)}`;
  console.log(
    `${name}\n${Object.keys(sides)
      .map((side) => `  ${line(side)}`)
      .join('\n')}`,
  );
}
console.log(`wrote ${args.out}`);
