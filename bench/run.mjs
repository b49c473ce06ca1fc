#!/usr/bin/env node
// Benchmark runner: `npm run bench [-- --quick] [-- --only=1,3] [-- --verbose] [-- --out=file]`.
// Prints a table and writes bench/results/latest.json (full runs) or bench/results/partial.json.tmp
// (--quick / --only, so a smoke run never replaces the committed full results).
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  BENCH_DIR,
  REPO_ROOT,
  cleanupPrefix,
  diagnostics,
  findBroker,
  info,
  libraryRevision,
  machineInfo,
  newRunId,
  otherLoad,
  packageVersion,
  postgresVersion,
  setVerbose,
} from './lib/common.mjs';
import { killAllChildren } from './lib/child.mjs';
import { CLIENTS } from './lib/sides.mjs';
import * as b1 from './benchmarks/b1-ready.mjs';
import * as b2 from './benchmarks/b2-twenty.mjs';
import * as b3 from './benchmarks/b3-fanout.mjs';
import * as b4 from './benchmarks/b4-throughput.mjs';
import * as b5 from './benchmarks/b5-groups.mjs';
import * as b6 from './benchmarks/b6-heartbeat.mjs';
import * as b7 from './benchmarks/b7-memory.mjs';
import * as b8 from './benchmarks/b8-receipts.mjs';
import * as b9 from './benchmarks/b9-telemetry.mjs';
import * as b12 from './benchmarks/b12-kip848.mjs';

const ALL = [b1, b2, b3, b4, b5, b6, b7, b8, b9, b12];

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    skip: { type: 'string' },
    verbose: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
setVerbose(args.verbose);
const only = args.only ? new Set(args.only.split(',').map((s) => s.trim())) : undefined;
const skip = new Set((args.skip ?? '').split(',').filter(Boolean));
const selected = ALL.filter((b) => (!only || only.has(b.id)) && !skip.has(b.id));
if (selected.length === 0) {
  console.error(`no benchmark selected (ids: ${ALL.map((b) => b.id).join(', ')})`);
  process.exit(2);
}
const partial = args.quick || selected.length !== ALL.length;
const outFile = resolve(
  REPO_ROOT,
  args.out ?? join(BENCH_DIR, 'results', partial ? 'partial.json.tmp' : 'latest.json'),
);

process.on('SIGINT', () => {
  killAllChildren();
  process.exit(130);
});

const startedAt = new Date();
const t0 = Date.now();
const runId = newRunId();
info(
  `run ${runId}: benchmarks ${selected.map((b) => b.id).join(', ')}${args.quick ? ' (quick)' : ''}`,
);
const pg = await postgresVersion();
if (!pg) {
  console.error(
    'PostgreSQL is not reachable (127.0.0.1:5432, user postgres, db test; PG* env overrides): lock mode needs it.',
  );
  process.exit(2);
}
const broker = await findBroker();
info(`Kafka ${broker.version} at ${broker.brokers.join(',')} (${broker.source})`);

const results = {};
const report = {
  schema: 1,
  runId,
  date: startedAt.toISOString(),
  args: { quick: args.quick, only: args.only ?? null, skip: args.skip ?? null },
  machine: machineInfo(),
  otherProcessesAtStart: otherLoad(),
  software: {
    node: process.version,
    kafkajs: packageVersion('kafkajs'),
    '@platformatic/kafka': packageVersion('@platformatic/kafka'),
    // Only when its build loads (lib/sides.mjs): the confluent sides run then.
    ...(CLIENTS.includes('confluent') && {
      '@confluentinc/kafka-javascript': packageVersion('@confluentinc/kafka-javascript'),
    }),
    typeorm: packageVersion('typeorm'),
    pg: packageVersion('pg'),
    kafka: {
      version: broker.version,
      brokers: broker.brokers,
      source: broker.source,
    },
    postgres: pg,
    library: {
      ...libraryRevision(),
      measured: process.env.BENCH_LIB ?? 'nestjs-kafka-broadcast (libs/broadcast/dist)',
    },
  },
  baseline:
    'R = one raw consumer per instance, fresh random group `<prefix>svc-<uuid>`, starting at the high watermark, ' +
    'sessionTimeout 10000, heartbeatInterval 1000, maxWait 250 ms, rebalanceTimeout 10000, metadataMaxAge 30000, ' +
    'same broker, same topics (data, heartbeat and receipts topics, all created before the clock starts), one client per instance on every side',
  sides: {
    'ours-kafkajs': 'BroadcastEngine with the kafkajs adapter (kafka.client kafkajs)',
    'ours-platformatic':
      'BroadcastEngine with the @platformatic/kafka adapter (kafka.client platformatic)',
    'R-kafkajs':
      'R on raw kafkajs: consumer.run with eachMessage; ready = first FETCH event after GROUP_JOIN',
    'R-platformatic':
      "R on raw @platformatic/kafka: Consumer.consume (mode committed, fallback latest, classic protocol, maxBytesPerPartition 1 MiB as kafkajs's), the stream's async iterator; ready = the stream's first fetch (it is made after the join)",
    'ours-platformatic-kip848':
      "benchmark 12 only: ours-platformatic with kafka.groupProtocol 'consumer' (KIP-848)",
    'R-platformatic-kip848':
      "benchmark 12 only: R-platformatic with groupProtocol 'consumer' (KIP-848)",
    note: 'benchmarks 1-4 and 7 run all four sides, 12 (its own 3-node cluster with broker defaults) those four plus KIP-848 on @platformatic/kafka; 5, 6 and 9 run ours on kafkajs only, 8 ours on each adapter against its own plain publish (see bench/README.md)',
  },
  benchmarks: {},
};

let failed = 0;
for (const bench of selected) {
  const ctx = {
    brokers: broker.brokers,
    quick: args.quick,
    runId,
    results,
    prefix: (id) => `${runId}-b${id}-`,
    log: info,
  };
  const bt0 = Date.now();
  const load0 = machineInfo().loadavg;
  info(`[${bench.id}] ${bench.title} ... (load ${load0.join(' ')})`);
  try {
    const result = await bench.run(ctx);
    results[bench.id] = result;
    report.benchmarks[bench.id] = {
      title: bench.title,
      durationMs: Date.now() - bt0,
      loadavg: { start: load0, end: machineInfo().loadavg },
      ...result,
    };
    info(`[${bench.id}] done in ${((Date.now() - bt0) / 1000).toFixed(1)} s`);
  } catch (error) {
    failed++;
    info(`[${bench.id}] FAILED: ${error?.stack ?? error}`);
    report.benchmarks[bench.id] = {
      title: bench.title,
      durationMs: Date.now() - bt0,
      error: String(error?.stack ?? error),
    };
    killAllChildren();
  } finally {
    try {
      const cleaned = await cleanupPrefix(broker.brokers, ctx.prefix(bench.id), {
        groupWaitMs: 25_000,
      });
      if (report.benchmarks[bench.id]) report.benchmarks[bench.id].cleanup = cleaned;
    } catch (error) {
      info(`[${bench.id}] cleanup failed: ${error.message}`);
    }
  }
}

await broker.stop();
report.durationMs = Date.now() - t0;
report.machine.loadavgEnd = machineInfo().loadavg;
report.diagnostics = diagnostics;
report.table = selected.flatMap((b) =>
  (report.benchmarks[b.id].rows ?? []).map((r) => ({ bench: b.id, ...r })),
);

await new Promise((r) => process.stdout.write(formatTable(report) + '\n', r));
await mkdir(dirname(outFile), { recursive: true });
await writeFile(outFile, JSON.stringify(report, null, 1) + '\n');
info(`wrote ${relative(REPO_ROOT, outFile)} (${(report.durationMs / 1000).toFixed(0)} s)`);
process.exit(failed ? 1 : 0);

// ---------------------------------------------------------------- table
function fmt(v, unit) {
  if (v === undefined || v === null || Number.isNaN(v)) return '-';
  if (unit === 'msg/s' || unit === 'count' || unit === 'groups') return String(Math.round(v));
  if (Math.abs(v) >= 1000) return String(Math.round(v));
  if (Math.abs(v) >= 100) return v.toFixed(0);
  if (Math.abs(v) >= 10) return v.toFixed(1);
  return v.toFixed(2);
}
function triple(s, unit) {
  if (!s || !s.n) return '';
  if (s.n === 1 || s.min === s.max) return fmt(s.median, unit);
  return `${fmt(s.min, unit)} / ${fmt(s.median, unit)} / ${fmt(s.max, unit)}`;
}
function formatTable(rep) {
  const head = [
    '#',
    'metric',
    'unit',
    'ours  min / med / max',
    'R (baseline)  min / med / max',
    'ratio',
    'target',
    'ok',
  ];
  const lines = rep.table.map((r) => [
    r.sub ? '' : r.bench,
    r.metric,
    r.unit ?? '',
    triple(r.ours, r.unit),
    triple(r.base, r.unit),
    Number.isFinite(r.ratio) ? r.ratio.toFixed(3) : '',
    r.target ?? '',
    r.pass === true ? 'yes' : r.pass === false ? 'NO' : '',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => String(l[i]).length)));
  const row = (cells) => cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ');
  const out = [
    '',
    `Benchmark ${rep.runId}  ${rep.date}  Kafka ${rep.software.kafka.version}  kafkajs ${rep.software.kafkajs}  ` +
      `${rep.machine.cpus} x ${rep.machine.cpuModel}  node ${rep.machine.node}  load ${rep.machine.loadavg.join(' ')} -> ${rep.machine.loadavgEnd.join(' ')}`,
    row(head),
    widths.map((w) => '-'.repeat(w)).join('-+-'),
    ...lines.map(row),
  ];
  for (const [id, b] of Object.entries(rep.benchmarks))
    if (b.error) out.push(`benchmark ${id} FAILED: ${b.error.split('\n')[0]}`);
  const notes = rep.table
    .filter((r) => r.note)
    .map((r) => `  [${r.bench}] ${r.metric.trim()}: ${r.note}`);
  if (notes.length) out.push('', 'notes:', ...notes);
  out.push(
    '',
    `engine warnings: ${rep.diagnostics.warnings}, errors: ${rep.diagnostics.errors}; total ${(rep.durationMs / 1000).toFixed(0)} s`,
  );
  return out.join('\n');
}
