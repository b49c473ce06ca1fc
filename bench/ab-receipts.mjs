#!/usr/bin/env node
// Builds compared on receipts (benchmark 8): per client, ten engines of every build (lock-free, so
// that several fleets need no database connections; a publish never touches the lock either way),
// in one process, each build's fleet on its own prefix, all running throughout. Every repetition
// times, for each build in turn (the order rotating), a plain publish until all ten handlers ran
// and a publish with receipts until it resolved with all ten ok.
//
//   node bench/ab-receipts.mjs --builds=<name>=<dist/esm/index.js>,<name>=<…> [--reps=60]
//                              [--clients=kafkajs,platformatic] [--out=bench/results/x.json]
//                              [--roster=<name>,…]
//
// The builds named in --roster publish with `receipts: { expected: 'roster' }` (the roster's
// background view instead of the look before the send); one path may be named twice, with and
// without it.
//
// Prints min / median / max per build and the receipt ÷ plain ratio of the medians.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  cleanupPrefix,
  findBroker,
  libraryRevision,
  machineInfo,
  newRunId,
  ratio,
  sleep,
  summary,
} from './lib/common.mjs';
import { loadBuild } from './lib/ours.mjs';
import { receiptFleet } from './lib/receipt-fleet.mjs';

const { values: args } = parseArgs({
  options: {
    builds: { type: 'string' },
    reps: { type: 'string', default: '60' },
    clients: { type: 'string', default: 'kafkajs,platformatic' },
    out: { type: 'string' },
    roster: { type: 'string', default: '' },
  },
});
if (!args.builds) {
  console.error('usage: node bench/ab-receipts.mjs --builds=a=<index.js>,b=<index.js> [--reps=60]');
  process.exit(2);
}
const paths = Object.fromEntries(args.builds.split(',').map((b) => b.split('=')));
const names = Object.keys(paths);
const rosterBuilds = new Set(args.roster.split(',').filter(Boolean));
const builds = {};
for (const name of names) builds[name] = await loadBuild(pathToFileURL(resolve(paths[name])).href);
const reps = Number(args.reps);
const broker = await findBroker();
const prefix = `${newRunId()}-abrcpt-`;
const startedAt = new Date().toISOString();
const loadAtStart = machineInfo().loadavg;
const results = {};
try {
  for (const client of args.clients.split(',')) {
    const fleets = {};
    for (const name of names)
      fleets[name] = await receiptFleet({
        brokers: broker.brokers,
        prefix: `${prefix}${client}-${name}-`,
        client,
        lock: 'none',
        createEngine: builds[name].createEngine,
        receiptOptions: rosterBuilds.has(name) ? { expected: 'roster' } : {},
      });
    const samples = Object.fromEntries(names.map((n) => [n, { plain: [], receipt: [] }]));
    const loadavg = [];
    try {
      for (let i = 0; i < reps; i++) {
        const turn = names.map((_, k) => names[(i + k) % names.length]);
        for (const name of turn) {
          samples[name].plain.push((await fleets[name].plain({ i })).all);
          await sleep(20);
          samples[name].receipt.push(await fleets[name].receipt({ i }));
          await sleep(20);
        }
        if (i % 10 === 9) loadavg.push(machineInfo().loadavg[0]);
      }
    } finally {
      await Promise.all(Object.values(fleets).map((f) => f.stop()));
    }
    const table = {};
    for (const name of names) {
      const plain = summary(samples[name].plain);
      const receipt = summary(samples[name].receipt);
      table[name] = { plain, receipt, ratio: ratio(receipt.median, plain.median) };
      console.log(
        `${client} ${name}: receipt ${receipt.min} / ${receipt.median} / ${receipt.max} ms, plain ${plain.min} / ${plain.median} / ${plain.max} ms, ratio ${table[name].ratio}`,
      );
    }
    console.log(`${client}: load average (1 min) every 10 repetitions ${loadavg.join(', ')}`);
    results[client] = { table, samples, loadavg };
  }
} finally {
  await cleanupPrefix(broker.brokers, prefix).catch(() => undefined);
}
if (args.out) {
  writeFileSync(
    args.out,
    JSON.stringify(
      {
        startedAt,
        endedAt: new Date().toISOString(),
        loadAtStart,
        machine: machineInfo(),
        library: libraryRevision(),
        builds: paths,
        roster: [...rosterBuilds],
        reps,
        results,
      },
      null,
      1,
    ) + '\n',
  );
  console.log(`wrote ${args.out}`);
}
process.exit(0);
