#!/usr/bin/env node
// Where N lock-free starts at once go, step by step: N engines on @platformatic/kafka in this
// process start on one signal (after one warm-up start), each step of each start (the engine's
// StepProbe: allocate, lock, delete, snapshot, connect, subscribe, run, joined, verify) printed in
// ms since the signal, with the pool id each ended in. A second `delete@…` is a second candidate.
//
//   KAFKA_BROKERS=127.0.0.1:31817 [N=20] [PROTO=classic|consumer] [LIB=path/to/esm/index.js] \
//     node bench/lib/start-phases.mjs
import { pathToFileURL } from 'node:url';

const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:31817').split(',');
const N = Number(process.env.N ?? 20);
const proto = process.env.PROTO;
const { BroadcastEngine } = await import(
  process.env.LIB ? pathToFileURL(process.env.LIB).href : 'nestjs-kafka-broadcast'
);
const quiet = { log() {}, warn() {}, error: (m) => process.stderr.write(`${m}\n`) };
let t0 = 0;
const steps = Array.from({ length: N }, () => []);
const make = (prefix, i, probe) =>
  new BroadcastEngine(
    {
      kafka: {
        brokers,
        client: 'platformatic',
        clientId: `phases-${i}`,
        ...(proto && { groupProtocol: proto }),
      },
      topicPrefix: prefix,
      lock: false,
    },
    { logger: quiet, probe },
  ).on('events', () => {});
const warm = make(`phases${Date.now().toString(36)}w-`, 0);
await warm.start();
await warm.stop();
const prefix = `phases${Date.now().toString(36)}-`;
const engines = steps.map((s, i) =>
  make(prefix, i, (step) => s.push(`${step}@${Date.now() - t0}`)),
);
t0 = Date.now();
const ready = await Promise.all(engines.map((e) => e.start().then(() => Date.now() - t0)));
engines.forEach((e, i) =>
  console.log(
    `${String(ready[i]).padStart(6)} ms  id ${e.reader.groupId.split('-').pop()}  ${steps[i].join(' ')}`,
  ),
);
const sorted = [...ready].sort((a, b) => a - b);
console.log(`all ready ${sorted.at(-1)} ms, median ${sorted[N >> 1]} ms`);
await Promise.all(engines.map((e) => e.stop()));
process.exit(0);
