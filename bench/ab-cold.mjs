#!/usr/bin/env node
// A/B of a library change on the process-cold start and the memory of one instance on
// @platformatic/kafka: child processes (bench/instance.mjs) ONE AT A TIME, the sides in an order
// that rotates every repetition, so load on the box hits every side alike. Sides: R (a raw
// consumer), ours on the build under test (`after`, libs/broadcast/dist) and on another build
// (`before`, --before-lib), lock-free (start() right after on()) and in lock mode with the engine
// built before TypeORM connects (--engine-first, as the Nest module wires it), and lock-free on the
// package's engine entry (no NestJS, as a non-Nest app imports it); plus the import references for
// "RSS above its own import" (as benchmark 7).
//
//   node bench/ab-cold.mjs --before-lib=<index.js of the other build> [--reps=8] [--idle-ms=2000]
//                          [--out=.cache/bench/ab-client-preload.json]
import os from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { createTopics, findBroker, libraryRevision, machineInfo, newRunId } from './lib/common.mjs';
import { cleanupPrefix, ratio, round, sleep, summary } from './lib/common.mjs';
import { rssKiB, spawnInstance } from './lib/child.mjs';

const { values: args } = parseArgs({
  options: {
    'before-lib': { type: 'string' },
    reps: { type: 'string', default: '8' },
    'idle-ms': { type: 'string', default: '2000' },
    out: { type: 'string', default: '.cache/bench/ab-client-preload.json' },
  },
});
if (!args['before-lib']) throw new Error('usage: node bench/ab-cold.mjs --before-lib=<index.js>');
const before = { BENCH_LIB: args['before-lib'] };
// The package's engine entry (no NestJS), as an app without Nest imports it.
const engineEntry = { BENCH_LIB: 'libs/broadcast/dist/esm/engine.js' };
/** Each side; `ref`: the import reference its "RSS above its own import" is taken over. */
const SIDES = {
  R: { mode: 'raw', ref: 'import-platformatic' },
  'before-lockfree': { mode: 'lockfree', env: before, ref: 'import-lib-platformatic' },
  // The package barrel (with the Nest module), as a Nest app imports it.
  'after-lockfree': {
    mode: 'lockfree',
    extraArgs: ['--entry=index'],
    ref: 'import-lib-platformatic',
  },
  'after-lockfree-engine-entry': {
    mode: 'lockfree',
    env: engineEntry,
    ref: 'import-engine-entry-platformatic',
  },
  'before-lock-engine-first': { mode: 'lock', env: before, extraArgs: ['--engine-first'] },
  'after-lock-engine-first': { mode: 'lock', extraArgs: ['--engine-first', '--entry=index'] },
  'import-platformatic': { mode: 'import-platformatic' },
  'import-lib-platformatic': { mode: 'import-lib-platformatic', extraArgs: ['--entry=index'] },
  'import-engine-entry-platformatic': { mode: 'import-lib-platformatic', env: engineEntry },
};
const names = Object.keys(SIDES);
const reps = Number(args.reps);
const idleMs = Number(args['idle-ms']);
const { brokers } = await findBroker();
const prefix = `${newRunId()}-abcold-`;
await createTopics(brokers, [`${prefix}events`]);
const machine = machineInfo();
const samples = Object.fromEntries(names.map((n) => [n, []]));
/** One uncounted start of ours and of R first: ours' creates the engine's heartbeat and receipts
 * topics, which every later start of either build only checks. */
async function warmUp() {
  for (const mode of ['lockfree', 'raw']) {
    const child = spawnInstance({
      mode,
      brokers,
      prefix,
      client: 'platformatic',
      extraArgs: mode === 'lockfree' ? ['--entry=index'] : [],
    });
    await child.ready.finally(() => child.proc.kill('SIGTERM'));
    await child.exited;
  }
}
try {
  await warmUp();
  for (let i = 0; i < reps; i++) {
    const order = names.map((_, k) => names[(k + i) % names.length]);
    for (const name of order) {
      const { mode, env, extraArgs } = SIDES[name];
      const child = spawnInstance({
        mode,
        brokers,
        prefix,
        client: 'platformatic',
        env,
        extraArgs,
      });
      try {
        const info = await child.ready;
        await sleep(idleMs);
        samples[name].push({
          startMs: round(info.startMs ?? NaN, 1),
          uptimeAtReadyMs: round(info.uptimeMs ?? NaN, 1),
          cpuAtReadyMs: round(info.cpuMs ?? NaN, 1),
          rssMiB: round(rssKiB(child.pid) / 1024, 1),
          load1: round(os.loadavg()[0], 2),
        });
      } finally {
        child.proc.kill('SIGTERM');
        await child.exited;
      }
    }
    process.stderr.write(`rep ${i + 1}/${reps} load ${os.loadavg()[0].toFixed(2)}\n`);
  }
} finally {
  await cleanupPrefix(brokers, prefix).catch(() => undefined);
}
const of = (name, field) => summary(samples[name].map((s) => s[field]));
/** RSS above the process's own import, the same rep paired (benchmark 7's measure). */
const above = (name, ref) =>
  summary(samples[name].map((s, i) => round(s.rssMiB - samples[ref][i].rssMiB, 1)));
const sides = Object.fromEntries(
  names.map((n) => [
    n,
    {
      startMs: of(n, 'startMs'),
      uptimeAtReadyMs: of(n, 'uptimeAtReadyMs'),
      cpuAtReadyMs: of(n, 'cpuAtReadyMs'),
      rssMiB: of(n, 'rssMiB'),
    },
  ]),
);
const aboveImport = Object.fromEntries(
  names.filter((n) => SIDES[n].ref).map((n) => [n, above(n, SIDES[n].ref)]),
);
const vsR = (field) =>
  Object.fromEntries(
    names
      .filter((n) => /lock/.test(n))
      .map((n) => [n, ratio(sides[n][field].median, sides.R[field].median)]),
  );
const result = {
  date: new Date().toISOString(),
  machine: { ...machine, loadavgEnd: os.loadavg().map((l) => +l.toFixed(2)) },
  library: libraryRevision(),
  beforeLib: args['before-lib'],
  params: { reps, idleMs, client: 'platformatic', sides: SIDES },
  summary: { sides, aboveImportMiB: aboveImport },
  ratiosVsR: {
    startMs: vsR('startMs'),
    uptimeAtReadyMs: vsR('uptimeAtReadyMs'),
    cpuAtReadyMs: vsR('cpuAtReadyMs'),
  },
  samples,
};
mkdirSync(dirname(args.out), { recursive: true });
writeFileSync(args.out, `${JSON.stringify(result, null, 2)}\n`);
const fmt = (s) => `${s.min} / ${s.median} / ${s.max}`;
for (const n of names)
  console.log(
    `${n.padEnd(26)} start→ready ${fmt(sides[n].startMs).padEnd(24)} process→ready ${fmt(sides[n].uptimeAtReadyMs).padEnd(26)} CPU ${fmt(sides[n].cpuAtReadyMs).padEnd(24)} RSS ${fmt(sides[n].rssMiB)}`,
  );
for (const [n, s] of Object.entries(aboveImport)) console.log(`above import ${n}: ${fmt(s)} MiB`);
console.log(JSON.stringify(result.ratiosVsR));
