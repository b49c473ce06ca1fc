#!/usr/bin/env node
// Bench 2's two figures (20 instances starting at once in one process: time until all are ready,
// client CPU per start) for two builds A and B and for R (raw kafkajs, a fresh group each), in ONE
// process, the order rotating on every repetition, so the load on a shared box hits all three
// alike and the ratios to R are fair.
//
//   node bench/ab-twenty.mjs --a=<copy-a>/esm/index.js --b=<copy-b>/esm/index.js [--label=name] [--reps=6]
//     [--client=kafkajs|platformatic]   (the engines' adapter, and R on the same client)
//     [--heartbeat-record]   (one record in the heartbeat topic before the first start, as in a
//                             running deployment: otherwise it is empty until an engine sends)
//
// Writes .cache/bench/ab-twenty-<label>.json.
import {
  cleanupPrefix,
  libraryRevision,
  machineInfo,
  newDataSource,
  now,
  ratio,
  rawKafka,
  round,
  sleep,
  summary,
} from './lib/common.mjs';
import { startRaw } from './lib/sides.mjs';
import { AB_TOPIC as TOPIC, sidesInTurn, startAbRun, writeResults } from './lib/ab-runs.mjs';
import { HEARTBEAT_TOPIC, engineTopics } from './lib/ours.mjs';

const { args, builds, broker, brokers, prefix } = await startAbRun({
  usage: 'usage: node bench/ab-twenty.mjs --a=<index.js> --b=<index.js> [--label] [--reps]',
  reps: '6',
  options: {
    n: { type: 'string', default: '20' },
    client: { type: 'string', default: 'kafkajs' },
    'heartbeat-record': { type: 'boolean', default: false },
  },
  tag: 'abt',
});
const N = Number(args.n);
const CLIENT = args.client;
if (args['heartbeat-record']) {
  const producer = rawKafka(brokers, 'abt-heartbeat').producer();
  await producer.connect();
  await producer.send({ topic: prefix + HEARTBEAT_TOPIC, messages: [{ value: 'x' }] });
  await producer.disconnect();
}

/** N engines of `build` (PostgreSQL locks, one DataSource each, made before the clock starts). */
async function ours(build) {
  const dataSources = await Promise.all(Array.from({ length: N }, () => newDataSource()));
  const engines = dataSources.map((dataSource, i) =>
    builds[build]
      .createEngine({ brokers, prefix, dataSource, client: CLIENT, clientId: `abt-${build}-${i}` })
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
    startRaw(CLIENT, {
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
  for (let i = 0; i < Number(args.reps); i++) {
    for (const side of sidesInTurn(i)) {
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
    // What else ran on the machine, when the operator says (BENCH_NOTE); load is measured.
    ...(process.env.BENCH_NOTE && { note: process.env.BENCH_NOTE }),
    loadavg1mAfterEachRep: loadDuring,
  },
  kafka: broker.version,
  library: libraryRevision(),
  builds: { A: args.a, B: args.b },
  n: N,
  client: CLIENT,
  heartbeatRecord: args['heartbeat-record'],
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
console.log(`ab-twenty "${args.label}" ${CLIENT}  load ${out.machine.loadavg.join(' ')}`);
for (const s of ['A', 'B', 'R'])
  console.log(
    `${s}: all ready ms ${fmt(out[s].allReadyMs)}   cpu ms/start ${fmt(out[s].cpuMsPerStart)}`,
  );
for (const s of ['A', 'B'])
  console.log(
    `${s}/R: cpu ${out.ratios[s].cpuPerStartVsR}  all-ready ${out.ratios[s].allReadyVsR}`,
  );
await writeResults(`ab-twenty-${args.label}`, out);
process.exit(0);
