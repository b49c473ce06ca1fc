#!/usr/bin/env node
// A/B of a library change on publishing: two builds in ONE process, one engine each per side and
// client (lock-free, heartbeats off), alternating A and B on every repetition so load hits both
// alike. Per side: `sequential` publishes awaited one by one (ms per publish: the round trip an
// app sees), `concurrent` publishes started at once (ms for all: what batching and in-flight
// limits allow).
//
//   node bench/ab-publish.mjs --a=<a>/dist/esm/index.js --b=<b>/dist/esm/index.js [--label=name] [--reps=5]
//
// Writes .cache/bench/ab-<label>.json.
import { cleanupPrefix, libraryRevision, machineInfo, now, ratio, summary } from './lib/common.mjs';
import { AB_TOPIC as TOPIC, startAbRun, writeResults } from './lib/ab-runs.mjs';

const SEQUENTIAL = 200;
const CONCURRENT = 2000;
const CLIENTS = ['kafkajs', 'platformatic'];

const { args, builds, broker, brokers, prefix } = await startAbRun({
  usage: 'usage: node bench/ab-publish.mjs --a=<index.js> --b=<index.js> [--label=name] [--reps=5]',
  reps: '5',
  tag: 'abpub',
});

async function one(build, client, rep) {
  const e = builds[build]
    .createEngine({
      brokers,
      prefix,
      lock: 'none',
      client,
      heartbeat: false,
      clientId: `abpub-${build}-${client}-${rep}`,
    })
    .on(TOPIC, () => {});
  await e.start();
  try {
    await e.publisher.publish(TOPIC, { warm: true });
    let t0 = now();
    for (let i = 0; i < SEQUENTIAL; i++) await e.publisher.publish(TOPIC, { i });
    const sequentialMs = (now() - t0) / SEQUENTIAL;
    t0 = now();
    await Promise.all(
      Array.from({ length: CONCURRENT }, (_, i) => e.publisher.publish(TOPIC, { c: i })),
    );
    return { sequentialMs, concurrentMs: now() - t0 };
  } finally {
    await e.stop();
  }
}

const samples = {};
try {
  for (let rep = 0; rep < Number(args.reps); rep++)
    for (const client of CLIENTS)
      for (const build of rep % 2 ? ['B', 'A'] : ['A', 'B']) {
        const key = `${build}-${client}`;
        (samples[key] ??= []).push(await one(build, client, rep));
      }
} finally {
  await cleanupPrefix(brokers, prefix);
  await broker.stop();
}

const figures = {};
for (const client of CLIENTS) {
  const of = (build, field) => samples[`${build}-${client}`].map((s) => s[field]);
  figures[client] = {};
  for (const field of ['sequentialMs', 'concurrentMs']) {
    const a = summary(of('A', field));
    const b = summary(of('B', field));
    figures[client][field] = { A: a, B: b, ratioBtoA: ratio(b.median, a.median) };
  }
}
console.log(JSON.stringify(figures, null, 1));
await writeResults(`ab-${args.label}`, {
  at: new Date().toISOString(),
  machine: machineInfo(),
  builds: { A: args.a, B: args.b, revision: libraryRevision() },
  sequential: SEQUENTIAL,
  concurrent: CONCURRENT,
  figures,
  samples,
});
