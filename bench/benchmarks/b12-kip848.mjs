#!/usr/bin/env node
// 12. Start on production broker settings, classic against KIP-848 (issue #22 part 3): a fresh
// 3-node cluster with broker defaults (initial rebalance delay 3000 ms, 50 offsets partitions,
// replication 3; see PRODUCTION_DEFAULTS), time to ready of one instance, alternating sides:
//   ours-kafkajs      engine, kafkajs, classic (what every start cost until now)
//   ours-classic      engine, @platformatic/kafka, kafka.groupProtocol 'classic'
//   ours-kip848       engine, @platformatic/kafka, kafka.groupProtocol 'consumer'
//   raw-kafkajs       R: raw kafkajs consumer, fresh random group, ready at its first fetch answer
//   raw-classic       R: raw @platformatic/kafka consumer (stream, mode latest), classic group
//   raw-kip848        R: the same with groupProtocol 'consumer'
// R is the least a raw client needs: join + its first fetch answered (maxWaitTime 250 ms, so a
// fetch of an idle topic adds up to 250 ms to R). Ours is ready when start() resolves: group
// claimed (PostgreSQL lock), deleted, joined, exclusivity verified, positions sought.
//
//   npm run build:lib && node bench/benchmarks/b12-kip848.mjs [--reps=7] [--out=bench/results/kip848-start.json]
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { Consumer, MessagesStreamModes } from '@platformatic/kafka';
import { DataSource } from 'typeorm';
import {
  CONSUMER_DEFAULTS,
  REPO_ROOT,
  engineLogger,
  libraryRevision,
  machineInfo,
  now,
  otherLoad,
  packageVersion,
  round,
  startRawConsumer,
  summary,
} from '../lib/common.mjs';
import { startPrivatePostgres } from '../lib/fleet-db.mjs';
import { createTopics } from '../lib/fleet.mjs';
import { BroadcastEngine, engineTopics } from '../lib/ours.mjs';
import { PRODUCTION_DEFAULTS, benchCluster } from './b11-fleet.mjs';

const TOPIC = 'events';

function ours(cluster, db, kafka) {
  return (prefix) => async () => {
    const dataSource = await new DataSource({
      type: 'postgres',
      host: db.host,
      port: db.port,
      username: db.user,
      database: db.database,
      extra: { max: 2 },
    }).initialize();
    const engine = new BroadcastEngine(
      {
        kafka: { brokers: cluster.brokers, clientId: 'bench-kip848-ours', ...kafka },
        topicPrefix: prefix,
        lock: {},
      },
      { dataSource, logger: engineLogger },
    ).on(TOPIC, () => {});
    return {
      start: () => engine.start(),
      stop: async () => {
        await engine.stop();
        await dataSource.destroy();
      },
    };
  };
}

function rawKafkajs(cluster) {
  return (prefix) => async () => {
    let consumer;
    return {
      start: () => {
        consumer = startRawConsumer({
          brokers: cluster.brokers,
          prefix,
          topics: engineTopics(prefix, TOPIC),
          clientId: 'bench-kip848-raw',
        });
        return consumer.ready;
      },
      stop: () => consumer.stop(),
    };
  };
}

/** R on @platformatic/kafka: its own stream (mode latest), ready at the first fetch answer. */
function rawPlatformatic(cluster, groupProtocol) {
  return (prefix) => async () => {
    const consumer = new Consumer({
      clientId: 'bench-kip848-raw',
      bootstrapBrokers: cluster.brokers,
      groupId: `${prefix}svc-${randomUUID()}`,
      groupProtocol,
      autocommit: false,
      sessionTimeout: CONSUMER_DEFAULTS.sessionTimeout,
      heartbeatInterval: CONSUMER_DEFAULTS.heartbeatInterval,
      rebalanceTimeout: CONSUMER_DEFAULTS.rebalanceTimeout,
      maxWaitTime: CONSUMER_DEFAULTS.maxWaitTimeInMs,
    });
    let stream;
    return {
      start: async () => {
        stream = await consumer.consume({
          topics: engineTopics(prefix, TOPIC),
          mode: MessagesStreamModes.LATEST,
        });
        const fetched = new Promise((r) => stream.once('fetch', r));
        stream.on('data', () => {});
        await fetched;
      },
      stop: async () => {
        await stream?.close().catch(() => undefined);
        await consumer.close(true).catch(() => undefined);
      },
    };
  };
}

async function startTimed(factory) {
  const instance = await factory();
  const t0 = now();
  await instance.start();
  return { instance, ms: now() - t0 };
}

async function main() {
  const { values: args } = parseArgs({
    options: {
      reps: { type: 'string', default: '7' },
      out: { type: 'string', default: 'bench/results/kip848-start.json' },
    },
  });
  const reps = Number(args.reps);
  const runId = `b12${Date.now().toString(36)}`;
  const report = {
    schema: 1,
    bench: '12 start on production broker settings, classic against KIP-848',
    date: new Date().toISOString(),
    args,
    machine: {
      ...machineInfo(),
      ...(process.env.BENCH_NOTE && { note: process.env.BENCH_NOTE }),
    },
    versions: {
      node: process.version,
      kafkajs: packageVersion('kafkajs'),
      platformatic: packageVersion('@platformatic/kafka'),
    },
    library: libraryRevision(),
    otherProcessesAtStart: otherLoad(),
    cluster: { nodes: 3, properties: PRODUCTION_DEFAULTS },
    method:
      'one instance at a time, sides alternating per repetition; the first start of each side (its topics fresh) is reported apart',
  };
  const t0 = Date.now();
  const cluster = await benchCluster('three');
  const pg = await startPrivatePostgres();
  try {
    const sides = {
      'ours-kafkajs': ours(cluster, pg.db, { client: 'kafkajs' }),
      'ours-classic': ours(cluster, pg.db, { client: 'platformatic', groupProtocol: 'classic' }),
      'ours-kip848': ours(cluster, pg.db, { client: 'platformatic', groupProtocol: 'consumer' }),
      'raw-kafkajs': rawKafkajs(cluster),
      'raw-classic': rawPlatformatic(cluster, 'classic'),
      'raw-kip848': rawPlatformatic(cluster, 'consumer'),
    };
    // The first group coordinator lookup creates __consumer_offsets (50 partitions, RF 3).
    {
      const prefix = `${runId}-warmup-`;
      await createTopics(cluster.brokers, engineTopics(prefix, TOPIC));
      const { instance } = await startTimed(rawKafkajs(cluster)(prefix));
      await instance.stop();
    }
    const times = Object.fromEntries(Object.keys(sides).map((s) => [s, []]));
    const prefixes = {};
    for (const side of Object.keys(sides)) {
      prefixes[side] = `${runId}-${side}-`;
      await createTopics(cluster.brokers, engineTopics(prefixes[side], TOPIC));
    }
    for (let i = 0; i < reps + 1; i++) {
      const order = i % 2 === 0 ? Object.keys(sides) : Object.keys(sides).reverse();
      for (const side of order) {
        const { instance, ms } = await startTimed(sides[side](prefixes[side]));
        times[side].push(round(ms));
        await instance.stop();
      }
      process.stderr.write(
        `[b12] rep ${i}: ${order.map((s) => `${s} ${times[s].at(-1)}`).join(', ')}\n`,
      );
    }
    report.readyMs = Object.fromEntries(
      Object.entries(times).map(([side, list]) => [
        side,
        { firstMs: list[0], repeated: summary(list.slice(1)), times: list },
      ]),
    );
  } finally {
    await pg.stop().catch(() => undefined);
    await cluster.stop();
  }
  report.durationMs = Date.now() - t0;
  report.machine.loadavgEnd = machineInfo().loadavg;
  const out = resolve(REPO_ROOT, args.out);
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, JSON.stringify(report, null, 1) + '\n');
  for (const [side, r] of Object.entries(report.readyMs))
    process.stderr.write(`[b12] ${side}: ${JSON.stringify(r.repeated)} first ${r.firstMs}\n`);
  process.stderr.write(`[b12] wrote ${out}\n`);
}

await main();
