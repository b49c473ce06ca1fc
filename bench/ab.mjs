#!/usr/bin/env node
// A/B of a library change on time to ready: two builds in ONE process, alternating A, B, R on every
// repetition, so load on the box hits all three alike. With --twenty it also alternates 20-at-once starts.
//
//   node bench/ab.mjs --a=path/to/a/dist/esm/index.js --b=path/to/b/dist/esm/index.js [--label=name] [--reps=20] [--twenty=3]
//     [--client=kafkajs|platformatic|confluent] [--protocol=classic|consumer]
//
// --client and --protocol choose the engines' kafka.client and kafka.groupProtocol, and R's client
// and group protocol with them (kafkajs and classic by default, as before they existed).
//
// Writes .cache/bench/ab-<label>.json (raw samples and the phase breakdown of each build).
import {
  cleanupPrefix,
  libraryRevision,
  machineInfo,
  newDataSource,
  now,
  ratio,
  round,
  sleep,
  summary,
} from './lib/common.mjs';
import { AB_TOPIC as TOPIC, sidesInTurn, startAbRun, writeResults } from './lib/ab-runs.mjs';
import { engineTopics, instrument, phases } from './lib/ours.mjs';
import { startRaw } from './lib/sides.mjs';

const { args, builds, broker, brokers, prefix } = await startAbRun({
  usage:
    'usage: node bench/ab.mjs --a=<index.js> --b=<index.js> [--label=name] [--reps=20] [--twenty=3] [--client=kafkajs] [--protocol=classic]',
  reps: '20',
  options: {
    twenty: { type: 'string', default: '0' },
    client: { type: 'string', default: 'kafkajs' },
    protocol: { type: 'string', default: 'classic' },
  },
  tag: 'ab',
});

function engine(build, dataSource, i = 0) {
  return builds[build]
    .createEngine({
      brokers,
      prefix,
      dataSource,
      clientId: `ab-${build}-${i}`,
      client: args.client,
      kafka: { groupProtocol: args.protocol },
    })
    .on(TOPIC, () => {});
}

async function one(build) {
  const dataSource = await newDataSource();
  const e = engine(build, dataSource);
  const marks = instrument(e);
  const t0 = now();
  try {
    await e.start();
    const ready = now();
    return { ms: ready - t0, phases: phases(marks, t0, ready) };
  } finally {
    await e.stop();
    await dataSource.destroy();
  }
}

async function raw() {
  const r = startRaw(args.client, {
    brokers,
    prefix,
    topics: engineTopics(prefix, TOPIC),
    ...(args.protocol === 'consumer' && { groupProtocol: 'consumer' }),
  });
  try {
    await r.ready;
    return {
      ms: r.marks.ready - r.marks.t0,
      listOffsetsMs: r.marks.listOffsets - r.marks.t0,
    };
  } finally {
    await r.stop();
  }
}

async function twenty(build) {
  const dataSources = await Promise.all(Array.from({ length: 20 }, () => newDataSource()));
  const engines = dataSources.map((d, i) => engine(build, d, i));
  const t0 = now();
  try {
    const at = await Promise.all(engines.map((e) => e.start().then(() => now() - t0)));
    return Math.max(...at);
  } finally {
    await Promise.all(engines.map((e) => e.stop()));
    await Promise.all(dataSources.map((d) => d.destroy()));
  }
}

const samples = { A: [], B: [], R: [], twentyA: [], twentyB: [] };
try {
  await one('A');
  await one('B');
  await raw();
  const reps = Number(args.reps);
  for (let i = 0; i < reps; i++) {
    for (const side of sidesInTurn(i)) {
      samples[side].push(side === 'R' ? await raw() : await one(side));
      await sleep(100);
    }
  }
  for (let i = 0; i < Number(args.twenty); i++) {
    for (const side of i % 2 ? ['B', 'A'] : ['A', 'B']) {
      samples[`twenty${side}`].push(await twenty(side));
      await sleep(500);
    }
  }
} finally {
  await cleanupPrefix(brokers, prefix);
  await broker.stop();
}

const phaseNames = [
  'ensureTopics',
  'lock',
  'deleteGroup',
  'offsetsSnapshot',
  'join',
  'verify',
  'gaps',
];
const s = (side) => summary(samples[side].map((x) => x.ms));
const out = {
  label: args.label,
  date: new Date().toISOString(),
  machine: machineInfo(),
  kafka: broker.version,
  library: libraryRevision(),
  builds: { A: args.a, B: args.b },
  client: args.client,
  groupProtocol: args.protocol,
  ready: {
    A: s('A'),
    B: s('B'),
    R_firstFetch: s('R'),
    R_listOffsets: summary(samples.R.map((x) => x.listOffsetsMs)),
  },
  ratioBtoA: ratio(s('B').median, s('A').median),
  phases: Object.fromEntries(
    ['A', 'B'].map((side) => [
      side,
      Object.fromEntries(
        phaseNames.map((p) => [p, summary(samples[side].map((x) => x.phases[p]))]),
      ),
    ]),
  ),
  twenty: { A: summary(samples.twentyA), B: summary(samples.twentyB) },
  samples: {
    A: samples.A.map((x) => round(x.ms)),
    B: samples.B.map((x) => round(x.ms)),
    R: samples.R.map((x) => ({
      ms: round(x.ms),
      listOffsetsMs: round(x.listOffsetsMs),
    })),
    twentyA: samples.twentyA.map((v) => round(v)),
    twentyB: samples.twentyB.map((v) => round(v)),
  },
};
const fmt = (x) => `${x.min} / ${x.median} / ${x.max} (n=${x.n})`;
console.log(`A/B "${args.label}"  load ${out.machine.loadavg.join(' ')}`);
console.log(`ready ms  A: ${fmt(out.ready.A)}`);
console.log(`ready ms  B: ${fmt(out.ready.B)}   B/A ${out.ratioBtoA}`);
console.log(
  `R first FETCH: ${fmt(out.ready.R_firstFetch)}   R ListOffsets: ${fmt(out.ready.R_listOffsets)}`,
);
for (const p of phaseNames)
  console.log(
    `  ${p.padEnd(16)} A ${String(out.phases.A[p].median).padStart(7)}   B ${String(out.phases.B[p].median).padStart(7)}`,
  );
if (samples.twentyA.length)
  console.log(`20 at once  A: ${fmt(out.twenty.A)}   B: ${fmt(out.twenty.B)}`);
await writeResults(`ab-${args.label}`, out);
process.exit(0);
