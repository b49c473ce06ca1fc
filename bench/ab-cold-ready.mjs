#!/usr/bin/env node
// Builds compared on the process-cold ready of benchmark 7, on either client: child processes
// (bench/instance.mjs) ONE AT A TIME, every side timed from its process's start to ready (Node's
// start, every import, the start itself), the order rotating every repetition, after one
// uncounted process of each. Sides: R (a raw consumer of the client) and ours lock-free on each
// build given (its engine entry, e.g. <dist>/esm/engine.js: no NestJS, as R has none).
//
//   node bench/ab-cold-ready.mjs --client=kafkajs|platformatic [--reps=16] \
//        <name>=<engine.js of a build> [<name>=<…> …] [--out=.cache/bench/ab-cold-ready.json]
//
// Prints min / median / max of ready and the process CPU at ready per side, and each ÷ R.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { spawnInstance } from './lib/child.mjs';
import {
  cleanupPrefix,
  createTopics,
  findBroker,
  libraryRevision,
  machineInfo,
  newRunId,
  ratio,
  summary,
} from './lib/common.mjs';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    client: { type: 'string', default: 'kafkajs' },
    reps: { type: 'string', default: '16' },
    out: { type: 'string', default: '.cache/bench/ab-cold-ready.json' },
  },
});
if (positionals.length === 0) {
  console.error('usage: node bench/ab-cold-ready.mjs --client=kafkajs <name>=<engine.js> …');
  process.exit(2);
}
const { client } = args;
const sides = { R: { mode: 'raw', client } };
for (const build of positionals) {
  const [name, path] = build.split('=');
  sides[name] = { mode: 'lockfree', client, env: { BENCH_LIB: path } };
}
const names = Object.keys(sides);
const { brokers } = await findBroker();
const prefix = `${newRunId()}-abcoldready-`;
const startedAt = new Date().toISOString();
const samples = Object.fromEntries(names.map((n) => [n, []]));
const loadavg = [];

async function once(name) {
  const child = spawnInstance({ ...sides[name], brokers, prefix });
  try {
    const { uptimeMs, cpuMs } = await child.ready;
    return { uptimeMs, cpuMs };
  } finally {
    child.proc.kill('SIGTERM');
    await child.exited;
  }
}

try {
  await createTopics(brokers, [`${prefix}events`]);
  // Ours' first start creates the engine's heartbeat and receipts topics; later ones only check.
  for (const name of names) await once(name);
  for (let i = 0; i < Number(args.reps); i++) {
    loadavg.push(machineInfo().loadavg[0]);
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + i) % names.length];
      samples[name].push(await once(name));
    }
  }
} finally {
  await cleanupPrefix(brokers, prefix).catch(() => undefined);
}

const table = {};
for (const name of names) {
  const ready = summary(samples[name].map((s) => s.uptimeMs));
  const cpu = summary(samples[name].map((s) => s.cpuMs));
  table[name] = { ready, cpu };
}
for (const name of names) {
  const { ready, cpu } = table[name];
  const r = table.R;
  console.log(
    `${client} ${name}: ready ${ready.min.toFixed(0)} / ${ready.median.toFixed(0)} / ` +
      `${ready.max.toFixed(0)} ms (÷ R ${ratio(ready.median, r.ready.median)}), CPU at ready ` +
      `${cpu.median.toFixed(0)} ms (÷ R ${ratio(cpu.median, r.cpu.median)})`,
  );
}
console.log(`load average (1 min) per repetition: ${loadavg.map((l) => l.toFixed(1)).join(' ')}`);
mkdirSync(dirname(args.out), { recursive: true });
writeFileSync(
  args.out,
  `${JSON.stringify(
    {
      startedAt,
      endedAt: new Date().toISOString(),
      machine: machineInfo(),
      library: libraryRevision(),
      client,
      builds: Object.fromEntries(positionals.map((b) => b.split('='))),
      reps: Number(args.reps),
      loadavg,
      table,
      samples,
    },
    null,
    1,
  )}\n`,
);
console.log(`wrote ${args.out}`);
