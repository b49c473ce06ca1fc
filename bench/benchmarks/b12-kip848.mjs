#!/usr/bin/env node
// 12. Time to ready on production broker defaults, classic against KIP-848 (issue #22): a fresh
// 3-node cluster with broker defaults (group.initial.rebalance.delay.ms 3000, 50 offsets
// partitions, replication 3; PRODUCTION_DEFAULTS in lib/clusters.mjs), one instance at a time,
// six sides (ten with confluent) in a rotating order (a balanced Latin square, lib/sides.mjs rotation()):
//   ours-kafkajs             engine, kafkajs, classic (kafkajs speaks no other protocol)
//   ours-platformatic        engine, @platformatic/kafka, kafka.groupProtocol 'classic'
//   ours-platformatic-kip848 engine, @platformatic/kafka, kafka.groupProtocol 'consumer'
//   R-kafkajs                raw kafkajs consumer, fresh random group (as in benchmark 1)
//   R-platformatic           raw @platformatic/kafka consumer, classic (as in benchmark 1)
//   R-platformatic-kip848    the same with groupProtocol 'consumer'
// and, when @confluentinc/kafka-javascript loads (lib/sides.mjs CLIENTS), four more:
//   ours-confluent           engine, confluent (librdkafka), kafka.groupProtocol 'classic'
//   ours-confluent-kip848    engine, confluent, kafka.groupProtocol 'consumer'
//   R-confluent              raw librdkafka KafkaConsumer, classic (lib/raw-confluent.mjs)
//   R-confluent-kip848       the same with group.protocol 'consumer'
// Each start is benchmark 1's (b1-ready.mjs startOnce) on the cluster's brokers: ours ready when
// start() resolves, R at its first fetch after the join. Part of the full run (`npm run bench`);
// on its own:
//
//   npm run build:lib && node bench/benchmarks/b12-kip848.mjs [--reps=6] [--out=bench/results/kip848-start.json]
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PRODUCTION_DEFAULTS, productionCluster } from '../lib/clusters.mjs';
import {
  REPO_ROOT,
  libraryRevision,
  machineInfo,
  newRunId,
  otherLoad,
  packageVersion,
  round,
  summary,
} from '../lib/common.mjs';
import { createTopics } from '../lib/fleet.mjs';
import { CLIENTS, perSide, ratioRow, rotation } from '../lib/sides.mjs';
import { PHASES, prepare, startOnce } from './b1-ready.mjs';

export const id = '12';
export const title = 'Time to ready on production broker defaults (3 nodes), classic and KIP-848';

/** Ours and R on `client`, each on the classic protocol and on KIP-848 ('consumer'). */
const clientSides = (client) =>
  [true, false].flatMap((ours) =>
    ['classic', 'consumer'].map((groupProtocol) => ({
      key: `${ours ? 'ours' : 'R'}-${client}${groupProtocol === 'consumer' ? '-kip848' : ''}`,
      ours,
      client,
      groupProtocol,
    })),
  );

/**
 * The sides: benchmark 1's kafkajs and @platformatic/kafka sides on the classic protocol, KIP-848
 * on @platformatic/kafka, and, when its build loads, confluent's four (classic and KIP-848, ours
 * and R), in that order.
 */
export const PRODUCTION_SIDES = Object.freeze([
  { key: 'ours-kafkajs', ours: true, client: 'kafkajs' },
  { key: 'ours-platformatic', ours: true, client: 'platformatic', groupProtocol: 'classic' },
  {
    key: 'ours-platformatic-kip848',
    ours: true,
    client: 'platformatic',
    groupProtocol: 'consumer',
  },
  { key: 'R-kafkajs', ours: false, client: 'kafkajs' },
  { key: 'R-platformatic', ours: false, client: 'platformatic', groupProtocol: 'classic' },
  {
    key: 'R-platformatic-kip848',
    ours: false,
    client: 'platformatic',
    groupProtocol: 'consumer',
  },
  ...(CLIENTS.includes('confluent') ? clientSides('confluent') : []),
]);

/** The ratio rows: ours / R per client and protocol, then KIP-848 / classic and the cross rows. */
function rows(by) {
  const row = (metric, a, b, opts = {}) =>
    ratioRow({ metric, unit: 'ms', by, a, b, sub: true, ...opts });
  return [
    row(
      'production defaults ready ms, classic: ours-kafkajs vs R-kafkajs',
      'ours-kafkajs',
      'R-kafkajs',
      {
        sub: false,
        target: 'info',
      },
    ),
    row('classic: ours-platformatic vs R-platformatic', 'ours-platformatic', 'R-platformatic'),
    row(
      'KIP-848: ours-platformatic vs R-platformatic',
      'ours-platformatic-kip848',
      'R-platformatic-kip848',
      {
        target: 'ours <= 300 ms',
        note: "target on ours' median itself (issue #22), not on the ratio",
      },
    ),
    row('ours-platformatic, KIP-848 vs classic', 'ours-platformatic-kip848', 'ours-platformatic'),
    row('R-platformatic, KIP-848 vs classic', 'R-platformatic-kip848', 'R-platformatic'),
    row('cross, classic: ours-platformatic vs ours-kafkajs', 'ours-platformatic', 'ours-kafkajs'),
    row('cross, classic: R-platformatic vs R-kafkajs', 'R-platformatic', 'R-kafkajs'),
    // Confluent's rows after the first seven, when the run has its sides.
    ...(by['ours-confluent']
      ? [
          row('classic: ours-confluent vs R-confluent', 'ours-confluent', 'R-confluent'),
          row(
            'KIP-848: ours-confluent vs R-confluent',
            'ours-confluent-kip848',
            'R-confluent-kip848',
          ),
          row('ours-confluent, KIP-848 vs classic', 'ours-confluent-kip848', 'ours-confluent'),
          row('R-confluent, KIP-848 vs classic', 'R-confluent-kip848', 'R-confluent'),
          row('cross, classic: ours-confluent vs ours-kafkajs', 'ours-confluent', 'ours-kafkajs'),
          row('cross, classic: R-confluent vs R-kafkajs', 'R-confluent', 'R-kafkajs'),
          row(
            'cross, KIP-848: ours-confluent vs ours-platformatic',
            'ours-confluent-kip848',
            'ours-platformatic-kip848',
          ),
        ]
      : []),
  ].map((r) =>
    r.target === 'ours <= 300 ms' ? { ...r, pass: (r.ours?.median ?? Infinity) <= 300 } : r,
  );
}

export async function run(ctx) {
  const prefix = ctx.prefix(id);
  const reps = ctx.reps ?? (ctx.quick ? 2 : 6);
  const cluster = await productionCluster(prefix);
  try {
    const on = { ...ctx, brokers: cluster.brokers };
    const prefixes = Object.fromEntries(PRODUCTION_SIDES.map((s) => [s.key, `${prefix}${s.key}-`]));
    for (const side of PRODUCTION_SIDES) await prepare(on, prefixes[side.key], createTopics);
    // The first start of each side (its topics and the broker's look at them fresh) is reported
    // apart, as benchmark 1 discards it.
    const first = {};
    for (const side of PRODUCTION_SIDES)
      first[side.key] = round((await startOnce(on, prefixes[side.key], side)).ms);
    const samples = perSide(PRODUCTION_SIDES);
    for (let i = 0; i < reps; i++) {
      const order = rotation(i, PRODUCTION_SIDES);
      for (const side of order)
        samples[side.key].push(await startOnce(on, prefixes[side.key], side));
      ctx.log?.(
        `[12] rep ${i}: ${order.map((s) => `${s.key} ${round(samples[s.key].at(-1).ms)}`).join(', ')}`,
      );
    }
    const ms = Object.fromEntries(
      PRODUCTION_SIDES.map((s) => [s.key, summary(samples[s.key].map((r) => r.ms))]),
    );
    const phases = Object.fromEntries(
      PRODUCTION_SIDES.filter((s) => s.ours).map((s) => [
        s.key,
        Object.fromEntries(PHASES.map((p) => [p, summary(samples[s.key].map((r) => r.phases[p]))])),
      ]),
    );
    return {
      params: {
        reps,
        firstStartReportedApart: true,
        order: `the ${PRODUCTION_SIDES.length} sides in a balanced Latin square (rotation() over ${PRODUCTION_SIDES.length}), one at a time`,
        cluster: { nodes: 3, kafka: cluster.version, properties: PRODUCTION_DEFAULTS },
        clusterStartupMs: cluster.startupMs,
        offsetsTopicWarmupMs: cluster.warmupMs,
        lock: 'postgres (the shared server, as benchmark 1)',
        sides: Object.fromEntries(
          PRODUCTION_SIDES.map(({ key, client, groupProtocol }) => [
            key,
            { client, groupProtocol: groupProtocol ?? 'classic' },
          ]),
        ),
      },
      rows: rows(ms),
      summary: { sides: ms, firstMs: first, phases },
      samples: Object.fromEntries(
        PRODUCTION_SIDES.map((s) => [
          s.key,
          samples[s.key].map((r) =>
            s.ours
              ? {
                  ms: round(r.ms),
                  phases: Object.fromEntries(
                    Object.entries(r.phases).map(([k, v]) => [k, round(v)]),
                  ),
                }
              : { ms: round(r.ms), listOffsetsMs: round(r.listOffsetsMs), joinMs: round(r.joinMs) },
          ),
        ]),
      ),
    };
  } finally {
    await cluster.stop();
  }
}

/** On its own: this benchmark alone, into its own results file. */
async function main() {
  const { values: args } = parseArgs({
    options: {
      reps: { type: 'string', default: '6' },
      out: { type: 'string', default: 'bench/results/kip848-start.json' },
    },
  });
  const runId = newRunId();
  const startedAt = new Date();
  const t0 = Date.now();
  // Before the run: the report was built after it, so its start load was the end's.
  const machine = machineInfo();
  const others = otherLoad();
  const result = await run({
    reps: Number(args.reps),
    runId,
    prefix: (n) => `${runId}-b${n}-`,
    log: (m) => process.stderr.write(`${m}\n`),
  });
  const report = {
    schema: 1,
    bench: `${id} ${title}`,
    date: startedAt.toISOString(),
    args,
    machine: {
      ...machine,
      ...(process.env.BENCH_NOTE && { note: process.env.BENCH_NOTE }),
    },
    versions: {
      node: process.version,
      kafkajs: packageVersion('kafkajs'),
      platformatic: packageVersion('@platformatic/kafka'),
      ...(CLIENTS.includes('confluent') && {
        confluent: packageVersion('@confluentinc/kafka-javascript'),
      }),
    },
    library: libraryRevision(),
    otherProcessesAtStart: others,
    ...result,
    durationMs: Date.now() - t0,
  };
  report.machine.loadavgEnd = machineInfo().loadavg;
  const out = resolve(REPO_ROOT, args.out);
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, JSON.stringify(report, null, 1) + '\n');
  for (const [side, s] of Object.entries(result.summary.sides))
    process.stderr.write(
      `[12] ${side}: ${JSON.stringify(s)} first ${result.summary.firstMs[side]}\n`,
    );
  process.stderr.write(`[12] wrote ${out}\n`);
  process.exit(0);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
