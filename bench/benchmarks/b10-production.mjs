#!/usr/bin/env node
// 8. Production-like broker: a fresh 3-node cluster with broker defaults (initial rebalance delay
// 3000 ms, 50 offsets partitions, replication 3). Ours (PostgreSQL locks, private server) vs R
// (raw kafkajs consumer, fresh random group), in the same run:
//   - time to ready of one instance (first start on the cluster, then repeated);
//   - a rolling restart of a 20-instance fleet, one at a time and five at a time: time per
//     step (stop the oldest b, start b new, all ready) and in total; groups on the broker after.
//
//   node bench/benchmarks/b10-production.mjs [--reps=3] [--fleet=20] [--out=.cache/bench/production.json]
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';
import { PRODUCTION_DEFAULTS, productionCluster } from '../lib/clusters.mjs';
import { REPO_ROOT, machineInfo, now, otherLoad, round, summary } from '../lib/common.mjs';
import { startPrivatePostgres } from '../lib/fleet-db.mjs';
import { createTopics, groupsWithPrefix } from '../lib/fleet.mjs';
import { engineTopics } from '../lib/ours.mjs';
import { instanceFactory, startTimed } from '../lib/sides.mjs';

const TOPIC = 'events';

/** A DataSource on the private server (pool of 2: 20 engines' locks and pools fit its 1000). */
const privateDataSource = (db) => () =>
  new DataSource({
    type: 'postgres',
    host: db.host,
    port: db.port,
    username: db.user,
    database: db.database,
    extra: { max: 2 },
  }).initialize();

async function rolling(factory, fleetSize, batch) {
  const fleet = await Promise.all(Array.from({ length: fleetSize }, () => startTimed(factory)));
  const initialAllReadyMs = Math.max(...fleet.map((f) => f.ms));
  const live = fleet.map((f) => f.instance);
  const steps = [];
  const cpu0 = process.cpuUsage();
  const t0 = now();
  for (let done = 0; done < fleetSize; done += batch) {
    const s0 = now();
    const leaving = live.splice(0, batch);
    await Promise.all(leaving.map((x) => x.stop()));
    const started = await Promise.all(leaving.map(() => startTimed(factory)));
    live.push(...started.map((s) => s.instance));
    steps.push({ stepMs: round(now() - s0), readyMs: started.map((s) => round(s.ms)) });
  }
  const totalMs = now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await Promise.all(live.map((x) => x.stop()));
  return {
    batch,
    initialAllReadyMs: round(initialAllReadyMs),
    totalMs: round(totalMs),
    stepMs: summary(steps.map((s) => s.stepMs)),
    readyMs: summary(steps.flatMap((s) => s.readyMs)),
    clientCpuMsPerRestart: round((cpu.user + cpu.system) / 1000 / fleetSize),
    steps,
  };
}

async function main() {
  const { values: args } = parseArgs({
    options: {
      reps: { type: 'string', default: '3' },
      fleet: { type: 'string', default: '20' },
      out: { type: 'string', default: '.cache/bench/production.json' },
    },
  });
  const reps = Number(args.reps);
  const fleetSize = Number(args.fleet);
  const runId = `b8${Date.now().toString(36)}`;
  const report = {
    schema: 1,
    bench: '8 production-like cluster',
    date: new Date().toISOString(),
    args,
    machine: {
      ...machineInfo(),
      // What else ran on the machine, when the operator says (BENCH_NOTE); load is measured.
      ...(process.env.BENCH_NOTE && { note: process.env.BENCH_NOTE }),
    },
    otherProcessesAtStart: otherLoad(),
    cluster: { nodes: 3, properties: PRODUCTION_DEFAULTS },
    baseline:
      'R = raw kafkajs consumer, fresh random group, fromBeginning false (bench/lib/common.mjs)',
  };
  const t0 = Date.now();
  const cluster = await productionCluster(`${runId}-`, TOPIC);
  report.warmupMs = cluster.warmupMs;
  const pg = await startPrivatePostgres().catch(async (error) => {
    await cluster.stop();
    throw error;
  });
  try {
    const sides = Object.fromEntries(
      [
        ['ours', { ours: true, client: 'kafkajs' }],
        ['raw', { ours: false, client: 'kafkajs' }],
      ].map(([name, side]) => [
        name,
        (prefix) =>
          instanceFactory(side, {
            brokers: cluster.brokers,
            prefix,
            topic: TOPIC,
            newDataSource: privateDataSource(pg.db),
          }),
      ]),
    );
    report.single = {};
    for (const [side, make] of Object.entries(sides)) {
      const prefix = `${runId}-${side}-single-`;
      await createTopics(cluster.brokers, engineTopics(prefix, TOPIC));
      const times = [];
      for (let i = 0; i < reps + 1; i++) {
        const { instance, ms } = await startTimed(make(prefix));
        times.push(round(ms));
        await instance.stop();
      }
      report.single[side] = { firstMs: times[0], repeatedMs: summary(times.slice(1)), times };
      process.stderr.write(`[b8] single ${side}: ${JSON.stringify(report.single[side])}\n`);
    }
    report.rolling = {};
    for (const batch of [1, 5]) {
      for (const [side, make] of Object.entries(sides)) {
        const prefix = `${runId}-${side}-roll${batch}-`;
        await createTopics(cluster.brokers, engineTopics(prefix, TOPIC));
        const result = await rolling(make(prefix), fleetSize, batch);
        result.groupsOnBrokerAfter = (await groupsWithPrefix(cluster.brokers, prefix)).length;
        report.rolling[`${side}-by-${batch}`] = result;
        const { steps: _steps, ...brief } = result;
        process.stderr.write(`[b8] rolling ${side} by ${batch}: ${JSON.stringify(brief)}\n`);
      }
    }
  } finally {
    await pg.stop().catch(() => undefined);
    await cluster.stop();
  }
  report.durationMs = Date.now() - t0;
  report.machine.loadavgEnd = machineInfo().loadavg;
  const out = resolve(REPO_ROOT, args.out);
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, JSON.stringify(report, null, 1) + '\n');
  process.stderr.write(`[b8] wrote ${out}\n`);
}

await main();
