#!/usr/bin/env node
// Cost curves from bench/results/fleet-*.json, drawn with vega-lite (compiled to vega, rendered
// to SVG in Node, no browser or canvas): time to all-ready, client CPU per start, heartbeats per
// interval and memory per instance against N, ours and R.
//
//   node bench/charts.mjs [--out-dir=dir] [bench/results/fleet-….json ...]  (default: the two BENCHMARKS.md shows)
//        -> bench/results/charts/*.svg (or dir/*.svg)
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import * as vega from 'vega';
import { compile } from 'vega-lite';
import { BENCH_DIR } from './lib/common.mjs';

const SERIES = {
  lockfree: 'ours, lock-free',
  'lockfree-x2': 'ours, lock-free, maxGroups 2N',
  postgres: 'ours, PostgreSQL locks',
  mariadb: 'ours, MariaDB locks',
  raw: 'R (raw client, random group)',
};
/** The series of a row: its mode's, "(before)" for a run of the --before-lib build. */
const seriesOf = (mode) =>
  mode.endsWith('-before')
    ? `${SERIES[mode.slice(0, -7)] ?? mode.slice(0, -7)} (before)`
    : (SERIES[mode] ?? mode);

const CHARTS = [
  { field: 'allReadyMs', title: 'Time until all N are ready (ms)', file: 'all-ready' },
  { field: 'clientCpuMsPerStart', title: 'Client CPU per start (ms)', file: 'cpu-per-start' },
  {
    field: 'requestsPerStart',
    title: 'Kafka requests per start (the whole fleet while it starts, / N)',
    file: 'requests-per-start',
  },
  {
    field: 'heartbeatsPerInterval',
    title: 'Heartbeats per interval, whole fleet (R sends none)',
    file: 'heartbeats',
  },
  {
    field: 'rssMiBPerInstance',
    title: 'Memory per instance (MiB RSS, process / instances)',
    file: 'memory',
  },
];

async function render(spec) {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  return view.toSVG();
}

const outArg = process.argv.find((a) => a.startsWith('--out-dir='));
const files = process.argv.slice(2).filter((a) => a !== outArg);
if (files.length === 0)
  for (const name of ['fleet-platformatic-consumer.json', 'fleet-kafkajs-classic.json'])
    files.push(join(BENCH_DIR, 'results', name));
const outDir = outArg
  ? resolve(outArg.slice('--out-dir='.length))
  : join(BENCH_DIR, 'results', 'charts');
await mkdir(outDir, { recursive: true });
for (const file of files) {
  const report = JSON.parse(await readFile(resolve(file), 'utf8'));
  const broker =
    report.cluster?.kind === 'three' ? '3-node cluster, broker defaults' : 'one broker';
  const client = report.args?.client ?? 'kafkajs';
  const protocol = report.args?.protocol ?? (client === 'kafkajs' ? 'classic' : 'auto');
  const protocolName = protocol === 'consumer' ? 'KIP-848' : protocol;
  const cluster = `${broker}; ${client === 'platformatic' ? '@platformatic/kafka' : client} ${protocolName}`;
  const stem = basename(file, '.json');
  for (const chart of CHARTS) {
    const values = report.rows
      .map((r) => ({ ...r, requestsPerStart: r.startRequests / r.n }))
      .filter((r) => r[chart.field] !== null && r[chart.field] !== undefined)
      .map((r) => ({ n: r.n, value: r[chart.field], series: seriesOf(r.mode) }));
    if (values.length === 0) continue;
    const svg = await render({
      $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
      title: {
        text: chart.title,
        subtitle: `${cluster}; ${report.date.slice(0, 10)}; shared 2-core machine`,
      },
      width: 420,
      height: 240,
      data: { values },
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'n', type: 'quantitative', title: 'instances N', scale: { type: 'linear' } },
        y: { field: 'value', type: 'quantitative', title: null },
        color: { field: 'series', type: 'nominal', title: null, legend: { orient: 'bottom' } },
      },
    });
    const out = join(outDir, `${stem}-${chart.file}.svg`);
    await writeFile(out, svg);
    process.stderr.write(`wrote ${out}\n`);
  }
}
