#!/usr/bin/env node
// A/B of a library change on benchmark 4's backlog drain (@platformatic/kafka, or --client): CPU µs per message
// (process user + system while draining / messages) and msg/s, for R (a raw consumer of the client),
// ours on the build under test (`after`, libs/broadcast/dist) and ours on another build (`before`,
// --before-lib), in ONE process, one at a time, the order rotating every repetition so load on a
// shared box hits every side alike. Each run is benchmark 4's `measure` (the first message held
// until the whole backlog is in the log).
//
//   node bench/ab-backlog.mjs --before-lib=<index.js of the other build> [--reps=6] [--messages=100000]
//        [--client=platformatic|kafkajs] [--out=.cache/bench/ab-backlog-cpu.json]
//   node bench/ab-backlog.mjs --profile=after [--messages=200000] [--before-lib=...]
//        one run of that side with the V8 CPU profiler on for the drain alone
//        (writes .cache/profiles/backlog-<side>.cpuprofile; nothing else)
import os from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { TOPIC, measure } from './benchmarks/b4-throughput.mjs';
import {
  cleanupPrefix,
  createTopics,
  findBroker,
  libraryRevision,
  machineInfo,
} from './lib/common.mjs';
import { newDataSource, newRunId, ratio, sleep, summary } from './lib/common.mjs';
import { createEngine, engineTopics, loadBuild } from './lib/ours.mjs';
import { startRaw } from './lib/sides.mjs';

const { values: args } = parseArgs({
  options: {
    'before-lib': { type: 'string' },
    reps: { type: 'string', default: '6' },
    messages: { type: 'string', default: '100000' },
    profile: { type: 'string' },
    client: { type: 'string', default: 'platformatic' },
    out: { type: 'string', default: '.cache/bench/ab-backlog-cpu.json' },
  },
});
const before = args['before-lib']
  ? await loadBuild(pathToFileURL(resolve(args['before-lib'])).href)
  : undefined;
if (!before && !args.profile) throw new Error('usage: see the head of bench/ab-backlog.mjs');

/** Ours on one build, as benchmark 4 starts it (lock mode, its own DataSource). */
const startOursOn = (build) => async (ctx, prefix, onMessage) => {
  const dataSource = await newDataSource();
  const engine = build.createEngine({
    brokers: ctx.brokers,
    prefix,
    dataSource,
    client: args.client,
    handlerTimeoutMs: 9_000,
  });
  engine.on(TOPIC, (payload) => onMessage(payload));
  await engine.start();
  return { stop: async () => (await engine.stop(), await dataSource.destroy()) };
};

/** R as benchmark 4 starts it: the stream's async iterator, one message at a time. */
async function startR(ctx, prefix, onMessage) {
  const topic = prefix + TOPIC;
  const raw = startRaw(args.client, {
    brokers: ctx.brokers,
    prefix,
    topics: engineTopics(prefix, TOPIC),
    onMessage: (t, _p, m) =>
      t === topic ? onMessage(JSON.parse(m.value.toString('utf8'))) : undefined,
  });
  await raw.ready;
  return raw;
}

const SIDES = {
  R: startR,
  after: startOursOn({ createEngine }),
  ...(before && { before: startOursOn(before) }),
};
const names = Object.keys(SIDES);
const total = Number(args.messages);
const broker = await findBroker();
const ctx = { brokers: broker.brokers };
const prefix = `${newRunId()}-abbacklog-`;
await createTopics(ctx.brokers, engineTopics(prefix, TOPIC));

/** The CPU profiler on for the drain alone (hooks of measure). */
function profiler(side) {
  const session = new Session();
  return {
    released: async () => {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 100 });
      await session.post('Profiler.start');
    },
    drained: async () => {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      mkdirSync('.cache/profiles', { recursive: true });
      const file = `.cache/profiles/backlog-${side}.cpuprofile`;
      writeFileSync(file, JSON.stringify(profile));
      console.log(`wrote ${file}`);
    },
  };
}

const run = (name, hooks) =>
  measure({
    ctx,
    prefix,
    total,
    variant: 'backlog',
    startConsumer: (onMessage) => SIDES[name](ctx, prefix, onMessage),
    hooks,
  });

try {
  if (args.profile) {
    await run(args.profile); // warm-up: JIT and first-start work outside the profile
    await sleep(300);
    console.log(JSON.stringify(await run(args.profile, profiler(args.profile))));
  } else {
    const machine = machineInfo();
    const samples = Object.fromEntries(names.map((n) => [n, []]));
    const loadavg = [];
    for (const name of names) await run(name); // one uncounted drain of each
    for (let i = 0; i < Number(args.reps); i++) {
      for (const name of names.map((_, k) => names[(k + i) % names.length])) {
        const r = await run(name);
        samples[name].push(r);
        console.log(
          `${i} ${name} ${r.cpuUsPerMsg} us/msg ${r.rate} msg/s${r.complete ? '' : ' INCOMPLETE'}`,
        );
        await sleep(300);
      }
      loadavg.push(os.loadavg().map((l) => +l.toFixed(2)));
    }
    const by = (field) =>
      Object.fromEntries(names.map((n) => [n, summary(samples[n].map((r) => r[field]))]));
    const cpu = by('cpuUsPerMsg');
    const rate = by('rate');
    const rows = [
      ['after', 'R'],
      ['before', 'R'],
      ['after', 'before'],
    ].map(([a, b]) => ({
      sides: [a, b],
      cpuUsPerMsg: ratio(cpu[a].median, cpu[b].median),
      rate: ratio(rate[a].median, rate[b].median),
    }));
    const out = {
      date: new Date().toISOString(),
      what: `benchmark 4 backlog drain on ${args.client}, A/B of two builds and R, one process`,
      params: { messages: total, reps: Number(args.reps), beforeLib: args['before-lib'] },
      machine,
      loadavgAfterEachRep: loadavg,
      library: libraryRevision(),
      note: process.env.BENCH_NOTE,
      summary: { cpuUsPerMsg: cpu, rate },
      rows,
      samples,
    };
    console.log(JSON.stringify({ cpu, rate, rows }, null, 1));
    mkdirSync(dirname(args.out), { recursive: true });
    writeFileSync(args.out, JSON.stringify(out, null, 1) + '\n');
    console.log(`wrote ${args.out}`);
  }
} finally {
  await cleanupPrefix(ctx.brokers, prefix).catch(() => undefined);
  await broker.stop?.();
  process.exit(0);
}
