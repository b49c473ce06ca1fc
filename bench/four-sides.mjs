#!/usr/bin/env node
// Prints the side-by-side figures of a full run as the markdown table of bench/README.md and
// docs/BENCHMARKS.md: our engine on each adapter and R on each raw client, medians with
// (min–max), the ratios ours-X / R-X per client and the cross ratio platformatic / kafkajs.
//
//   node bench/four-sides.mjs [bench/results/latest.json]
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? new URL('results/latest.json', import.meta.url).pathname;
const run = JSON.parse(readFileSync(file, 'utf8'));
const bench = (id) => run.benchmarks[id];
const KEYS = ['ours-kafkajs', 'ours-platformatic', 'R-kafkajs', 'R-platformatic'];

function num(v) {
  if (v === undefined || v === null || !Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a >= 10_000) return `${(v / 1000).toFixed(a >= 100_000 ? 0 : 1)}k`;
  if (a >= 100) return String(Math.round(v));
  if (a >= 10) return v.toFixed(1);
  return v.toFixed(2);
}
const cell = (s) =>
  !s?.n ? '–' : s.min === s.max ? num(s.median) : `${num(s.median)} (${num(s.min)}–${num(s.max)})`;
const r = (a, b) => (a?.median && b?.median ? (a.median / b.median).toFixed(2) : '–');

/** One table row from per-side summaries `by` (`by[key]` = summary). */
function row(id, figure, unit, by, target = '') {
  const [ok, op, rk, rp] = KEYS.map((k) => by?.[k]);
  // No cross cell when neither cross ratio exists (a row of one client only).
  const cross = ok || rk ? `${r(op, ok)}; ${r(rp, rk)}` : '';
  return `| ${id} | ${figure} (${unit}) | ${[ok, op, rk, rp].map(cell).join(' | ')} | ${r(ok, rk)} | ${r(op, rp)} | ${cross} | ${target} |`;
}

const lines = [
  '| # | Figure | ours-kafkajs | ours-platformatic | R-kafkajs | R-platformatic | ours ÷ R, kafkajs | ours ÷ R, platformatic | platformatic ÷ kafkajs: ours; R | Target |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
];
const b1 = bench('1')?.summary;
if (b1?.sides) {
  lines.push(row(1, 'Time to ready, one instance, cold', 'ms', b1.sides, '≤ 1.3'));
  lines.push(
    row(1, '… R until its start offsets were answered', 'ms', {
      ...b1.sides,
      ...b1.rawListOffsets,
    }),
  );
}
const b2 = bench('2')?.summary;
if (b2?.sides) {
  lines.push(row(2, '20 instances at once: all ready', 'ms', b2.sides, '≤ 0.8'));
  lines.push(row(2, '… client CPU per start', 'ms', b2.cpuMsPerStart, '≤ 2'));
}
const b3 = bench('3')?.summary;
if (b3?.p50) {
  lines.push(row(3, 'Fan-out publish → handler, 10 instances: p50', 'ms', b3.p50));
  lines.push(row(3, '… p99', 'ms', b3.p99, '≤ 1.1'));
}
const b4 = bench('4')?.summary;
if (b4?.live) {
  lines.push(row(4, 'Throughput, 100k produced while reading', 'msg/s', b4.live, '≥ 0.9'));
  lines.push(row(4, '… draining a backlog', 'msg/s', b4.backlog));
  lines.push(row(4, '… CPU per message, backlog', 'µs', b4.backlogCpuUsPerMsg));
}
const b7 = bench('7')?.summary?.rssMiB;
if (b7) {
  const sides = (mode) => ({
    'ours-kafkajs': b7[mode],
    'ours-platformatic': b7[`${mode}-platformatic`],
    'R-kafkajs': b7.raw,
    'R-platformatic': b7['raw-platformatic'],
  });
  lines.push(row(7, 'Resident memory, ours lock mode', 'MiB', sides('lock')));
  lines.push(row(7, '… ours lock-free', 'MiB', sides('lockfree')));
}
const b12 = bench('12')?.summary;
if (b12?.sides) {
  const s = b12.sides;
  lines.push(
    row(
      12,
      'Time to ready on production broker defaults (3 nodes, `group.initial.rebalance.delay.ms` 3000), classic protocol',
      'ms',
      s,
    ),
  );
  // Only @platformatic/kafka speaks KIP-848: its two sides in the platformatic columns.
  lines.push(
    row(
      12,
      '… KIP-848 consumer protocol (`kafka.groupProtocol`; kafkajs cannot speak it)',
      'ms',
      {
        'ours-platformatic': s['ours-platformatic-kip848'],
        'R-platformatic': s['R-platformatic-kip848'],
      },
      '≤ 300 ms',
    ),
  );
}
console.log(lines.join('\n'));
if (b12?.sides) {
  const s = b12.sides;
  const first = Object.entries(b12.firstMs)
    .map(([k, v]) => `${k} ${num(v)}`)
    .join(', ');
  console.log(
    `\nBenchmark 12, KIP-848 ÷ classic on @platformatic/kafka: ours ${r(s['ours-platformatic-kip848'], s['ours-platformatic'])}; ` +
      `R ${r(s['R-platformatic-kip848'], s['R-platformatic'])}. First start of each side (reported apart, ms): ${first}.`,
  );
}
/** The phases of ours' starts of one benchmark (medians, ms). */
function phaseTable(heading, phases) {
  console.log(`\n${heading}:\n`);
  const names = Object.keys(Object.values(phases)[0]);
  console.log(`| side | ${names.join(' | ')} |`);
  console.log(`| --- | ${names.map(() => '---').join(' | ')} |`);
  for (const [side, p] of Object.entries(phases))
    console.log(`| ${side} | ${names.map((n) => num(p[n]?.median)).join(' | ')} |`);
}
if (b1?.phases) phaseTable('Phases of one start (medians, ms)', b1.phases);
if (b12?.phases)
  phaseTable(
    'Phases of one start on production broker defaults, benchmark 12 (medians, ms)',
    b12.phases,
  );
const paired = (bench('3')?.rows ?? []).filter((x) => x.metric.includes('paired p99'));
if (paired.length) {
  console.log('\nPaired (ours and R on one client at once, same messages), p99:');
  for (const x of paired)
    console.log(
      `  ${x.sides.join(' vs ')}: ${cell(x.ours)} vs ${cell(x.base)} ms, ratio ${x.ratio}`,
    );
}
