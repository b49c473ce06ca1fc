#!/usr/bin/env node
// Bench 2's two figures (20 instances starting at once in one process: time until all are ready,
// client CPU per start) for two builds A and B and for R (raw kafkajs, a fresh group each), in ONE
// process, the order rotating on every repetition, so the load on a shared box hits all three
// alike and the ratios to R are fair.
//
//   node bench/ab-twenty.mjs --a=<copy-a>/esm/index.js --b=<copy-b>/esm/index.js [--label=name] [--reps=6]
//
// Writes bench/results/ab-twenty-<label>.json.
import { writeFile, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  BENCH_DIR,
  cleanupPrefix,
  createTopics,
  findBroker,
  libraryRevision,
  machineInfo,
  newDataSource,
  newRunId,
  now,
  ratio,
  round,
  sleep,
  startRawConsumer,
  summary,
} from './lib/common.mjs';
import { engineTopics, loadBuild } from './lib/ours.mjs';

const { values: args } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string' },
    label: { type: 'string', default: 'change' },
    reps: { type: 'string', default: '6' },
    n: { type: 'string', default: '20' },
  },
});
if (!args.a || !args.b) {
  console.error('usage: node bench/ab-twenty.mjs --a=<index.js> --b=<index.js> [--label] [--reps]');
  process.exit(2);
}
const builds = {
  A: await loadBuild(pathToFileURL(resolve(args.a)).href),
  B: await loadBuild(pathToFileURL(resolve(args.b)).href),
};
const N = Number(args.n);
const TOPIC = 'ready';
const broker = await findBroker();
const brokers = broker.brokers;
const prefix = `${newRunId()}-abt-`;
await createTopics(brokers, engineTopics(prefix, TOPIC));

/** N engines of `build` (PostgreSQL locks, one DataSource each, made before the clock starts). */
async function ours(build) {
  const dataSources = await Promise.all(Array.from({ length: N }, () => newDataSource()));
  const engines = dataSources.map((dataSource, i) =>
    builds[build]
      .createEngine({ brokers, prefix, dataSource, clientId: `abt-${build}-${i}` })
      .on(TOPIC, () => {}),
  );
  const cpu0 = process.cpuUsage();
  const t0 = now();
  try {
    const at = await Promise.all(engines.map((e) => e.start().then(() => now() - t0)));
    const cpu = process.cpuUsage(cpu0);
    return { allMs: Math.max(...at), cpuMs: (cpu.user + cpu.system) / 1000 / N };
  } finally {
    await Promise.all(engines.map((e) => e.stop()));
    await Promise.all(dataSources.map((d) => d.destroy()));
  }
}

async function raw() {
  const cpu0 = process.cpuUsage();
  const t0 = now();
  const consumers = Array.from({ length: N }, (_, i) =>
    startRawConsumer({
      brokers,
      prefix,
      topics: engineTopics(prefix, TOPIC),
      clientId: `abt-R-${i}`,
    }),
  );
  try {
    const at = await Promise.all(consumers.map((c) => c.ready.then(() => c.marks.ready - t0)));
    const cpu = process.cpuUsage(cpu0);
    return { allMs: Math.max(...at), cpuMs: (cpu.user + cpu.system) / 1000 / N };
  } finally {
    await Promise.all(consumers.map((c) => c.stop()));
  }
}

const samples = { A: [], B: [], R: [] };
const loadDuring = [];
try {
  // One warm-up of each (module loading, first connections, JIT).
  await ours('A');
  await ours('B');
  await raw();
  const orders = [
    ['A', 'B', 'R'],
    ['B', 'R', 'A'],
    ['R', 'A', 'B'],
  ];
  for (let i = 0; i < Number(args.reps); i++) {
    for (const side of orders[i % 3]) {
      samples[side].push(side === 'R' ? await raw() : await ours(side));
      await sleep(500);
    }
    loadDuring.push(machineInfo().loadavg[0]);
  }
} finally {
  await cleanupPrefix(brokers, prefix);
  await broker.stop();
}

const side = (s) => ({
  allReadyMs: summary(samples[s].map((x) => x.allMs)),
  cpuMsPerStart: summary(samples[s].map((x) => x.cpuMs)),
});
const out = {
  label: args.label,
  bench: 'bench/ab-twenty.mjs: benchmark 2 (20 at once, PostgreSQL locks) for builds A, B and R',
  date: new Date().toISOString(),
  machine: {
    ...machineInfo(),
    shared:
      'yes: 2 cores shared with a CI run and other sessions running tests and benchmarks; load was high',
    loadavg1mAfterEachRep: loadDuring,
  },
  kafka: broker.version,
  library: libraryRevision(),
  builds: { A: args.a, B: args.b },
  n: N,
  reps: Number(args.reps),
  A: side('A'),
  B: side('B'),
  R: side('R'),
  ratios: Object.fromEntries(
    ['A', 'B'].map((s) => [
      s,
      {
        cpuPerStartVsR: ratio(side(s).cpuMsPerStart.median, side('R').cpuMsPerStart.median),
        allReadyVsR: ratio(side(s).allReadyMs.median, side('R').allReadyMs.median),
      },
    ]),
  ),
  targets: { cpuPerStartVsR: '≤ 2', allReadyVsR: '≤ 0.8' },
  samples: Object.fromEntries(
    Object.entries(samples).map(([s, xs]) => [
      s,
      xs.map((x) => ({ allMs: round(x.allMs), cpuMs: round(x.cpuMs) })),
    ]),
  ),
};
const fmt = (x) => `${x.min} / ${x.median} / ${x.max}`;
console.log(`ab-twenty "${args.label}"  load ${out.machine.loadavg.join(' ')}`);
for (const s of ['A', 'B', 'R'])
  console.log(
    `${s}: all ready ms ${fmt(out[s].allReadyMs)}   cpu ms/start ${fmt(out[s].cpuMsPerStart)}`,
  );
for (const s of ['A', 'B'])
  console.log(
    `${s}/R: cpu ${out.ratios[s].cpuPerStartVsR}  all-ready ${out.ratios[s].allReadyVsR}`,
  );
const file = join(BENCH_DIR, 'results', `ab-twenty-${args.label}.json`);
await mkdir(join(BENCH_DIR, 'results'), { recursive: true });
await writeFile(file, JSON.stringify(out, null, 1) + '\n');
console.log(`wrote ${file}`);
process.exit(0);
