#!/usr/bin/env node
// The figures of docs/BENCHMARKS.md, from the result files: the full run (bench/results/latest.json)
// as one table per client, ours ÷ R on that client, and the fleets of 200 (the b11-fleet.mjs files).
//
//   node bench/report.mjs                 # prints the sections (markdown): the full run, the
//                                         # fleets, and what each part of a receipt costs
//                                         # (bench/results/receipts-variants.json)
//   node bench/report.mjs --write         # replaces them in docs/BENCHMARKS.md, between the
//                                         # <!-- report:… --> markers, then formats the file
//   node bench/report.mjs --run=<file> --fleets=<file,file,…>
//
// After a full `npm run bench` (or new fleet runs): `node bench/report.mjs --write`; then update
// the prose of BENCHMARKS.md where a figure moved past its target either way.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_DIR, REPO_ROOT, summary } from './lib/common.mjs';
import { fleetSection } from './lib/report-fleet.mjs';
import { cell, count, num, ratioText } from './lib/report-format.mjs';

const RESULTS = join(BENCH_DIR, 'results');
/** The fleet runs BENCHMARKS.md shows, in its order. */
export const FLEET_FILES = [
  'fleet-platformatic-consumer.json',
  'fleet-kafkajs-classic.json',
  'fleet-three-platformatic-consumer.json',
  'fleet-platformatic-classic.json',
  'fleet-three-kafkajs-classic.json',
  'fleet-three-platformatic-classic.json',
];
const DOC = join(REPO_ROOT, 'docs', 'BENCHMARKS.md');

const { values: args } = parseArgs({
  options: {
    run: { type: 'string', default: join(RESULTS, 'latest.json') },
    fleets: { type: 'string' },
    write: { type: 'boolean', default: false },
  },
});
const read = (file) => JSON.parse(readFileSync(file, 'utf8'));
const CONFLUENT = '@confluentinc/kafka-javascript';
/**
 * Whether any benchmark of `run` has an ours-confluent or R-confluent side: a key of one of its
 * summary's per-side maps (`sides`, `p99`, `aboveImportMiB`, `cold`, …).
 */
const hasConfluent = (run) =>
  Object.values(run.benchmarks).some((b) =>
    Object.values(b.summary ?? {}).some(
      (bySide) =>
        bySide &&
        typeof bySide === 'object' &&
        ('ours-confluent' in bySide || 'R-confluent' in bySide),
    ),
  );

/** The rows of one client's table: [figure, unit, ours, R, target, pass(ratio)]. */
function clientRows(run, client) {
  const b = (id) => run.benchmarks[id];
  const ours = `ours-${client}`;
  const raw = `R-${client}`;
  const side = (by) => [by?.[ours], by?.[raw]];
  const rows = [];
  const add = (figure, unit, [a, r], target = '', pass) =>
    rows.push({ figure, unit, a, r, target, pass });
  add('Time to ready, one instance', 'ms', side(b('1')?.summary?.sides), '≤ 1.3', (x) => x <= 1.3);
  add('20 at once: all ready', 'ms', side(b('2')?.summary?.sides), '≤ 0.5', (x) => x <= 0.5);
  add(
    '20 at once: client CPU per start',
    'ms',
    side(b('2')?.summary?.cpuMsPerStart),
    '≤ 1.3',
    (x) => x <= 1.3,
  );
  add('Fan-out p99, 10 instances', 'ms', side(b('3')?.summary?.p99), '≤ 1.1', (x) => x <= 1.1);
  const paired = b('3')?.rows?.find(
    (x) => x.metric.includes('paired p99') && x.sides?.[0] === ours,
  );
  add('… paired p99, ours and R at once on the same messages', 'ms', [paired?.ours, paired?.base]);
  add('Live throughput', 'msg/s', side(b('4')?.summary?.live), '≥ 1', (x) => x >= 1);
  add(
    'Backlog CPU per message',
    'µs',
    side(b('4')?.summary?.backlogCpuUsPerMsg),
    '≤ 1',
    (x) => x <= 1,
  );
  const rss = b('7')?.summary?.rssMiB;
  const lockfree = client === 'kafkajs' ? 'lockfree' : `lockfree-${client}`;
  const rawRss = client === 'kafkajs' ? 'raw' : `raw-${client}`;
  add('RSS, lock-free', 'MiB', [rss?.[lockfree], rss?.[rawRss]]);
  add(
    'RSS above its own import, lock-free',
    'MiB',
    side(b('7')?.summary?.aboveImportMiB),
    '< 8 MiB',
    undefined,
  );
  const cold = b('7')?.summary?.cold;
  const up = (label) => cold?.[label]?.uptimeMs;
  add(
    'Process-cold ready, process start → ready, lock-free',
    'ms',
    [up(ours), up(raw)],
    '≤ 1.2',
    (x) => x <= 1.2,
  );
  add('… lock mode; R opens the same DataSource first', 'ms', [
    up(`${ours}-lock`),
    up(`${raw}-datasource`),
  ]);
  add('… process CPU at ready, lock-free', 'ms', [cold?.[ours]?.cpuMs, cold?.[raw]?.cpuMs]);
  const receipts = b('8')?.rows?.find((x) =>
    x.metric.startsWith(`${client}: publish with receipts`),
  );
  add(
    'Receipt: all 10 acks (R: a plain publish, all 10 handlers ran)',
    'ms',
    [receipts?.ours, receipts?.base],
    '≤ 2',
    (x) => x <= 2,
  );
  add('Production broker defaults (3 nodes), classic: ready', 'ms', side(b('12')?.summary?.sides));
  if (client !== 'kafkajs') {
    const s = b('12')?.summary?.sides;
    add(
      '… KIP-848 consumer protocol',
      'ms',
      [s?.[`${ours}-kip848`], s?.[`${raw}-kip848`]],
      // Issue #22's target was set on @platformatic/kafka.
      client === 'platformatic' ? '≤ 300 ms' : '',
      undefined,
    );
  }
  return rows;
}

function clientTable(run, client) {
  const lines = ['| Figure | ours | R | ours ÷ R | Target |', '| --- | --- | --- | --- | --- |'];
  for (const { figure, unit, a, r, target, pass } of clientRows(run, client)) {
    const q = a?.median !== undefined && r?.median ? a.median / r.median : undefined;
    const met = q === undefined || !pass ? '' : pass(q) ? ' ✅' : ' ❌';
    lines.push(
      `| ${figure} (${unit}) | ${cell(a)} | ${cell(r)} | ${ratioText(q)}${met} | ${target} |`,
    );
  }
  return lines.join('\n');
}

/** The full run's section: what ran where, one table per client, and the figures without sides. */
function runSection(run, file) {
  const start = new Date(run.date);
  const end = new Date(start.getTime() + run.durationMs);
  const hm = (d) => d.toISOString().slice(11, 16);
  const s = run.software;
  const lib = s.library;
  const build = `\`${lib.commit.slice(0, 7)}\`${lib.dirtyFiles?.length ? ` plus ${lib.dirtyFiles.length} uncommitted file(s)` : ''}`;
  const b = (id) => run.benchmarks[id];
  const first = (id) => b(id)?.loadavg?.start?.[0];
  const groups = (b('5')?.rows ?? []).map(
    (x) =>
      `${x.metric.replace(/^groups left: ours /, '').replace(/ \(.*/, '')} ${count(x.ours?.median)}`,
  );
  const heartbeat = b('6')?.rows?.find((x) => x.metric.includes('ideal'));
  const missing = b('3')?.rows?.find((x) => x.metric.startsWith('deliveries missing'));
  const out = [
    `One full \`npm run bench\` (\`${relative(REPO_ROOT, file)}\`), ${start.toISOString().slice(0, 10)}, ` +
      `${hm(start)}–${hm(end)} UTC (${Math.round(run.durationMs / 1000)} s), build ${build}, Node ${s.node.replace(/^v/, '')}, ` +
      `Kafka ${s.kafka.version} (${s.kafka.source.replace(/ \(.*/, '')}; benchmark 12 on its own 3-node cluster with broker defaults), ` +
      `kafkajs ${s.kafkajs}, @platformatic/kafka ${s['@platformatic/kafka']}, ` +
      `${s[CONFLUENT] ? `${CONFLUENT} ${s[CONFLUENT]}, ` : ''}lock mode on ${s.postgres.replace(/ on .*/, '').replace(/ \(.*/, '')}. ` +
      `Load average (1 minute, 2 cores) ${num(run.machine.loadavg[0])} at the start, ${num(run.machine.loadavgEnd?.[0])} at the end` +
      `${
        first('1') !== undefined
          ? `; per benchmark at its start: ${Object.keys(run.benchmarks)
              .map((id) => `#${id} ${num(first(id))}`)
              .join(', ')}`
          : ''
      }. ` +
      'Medians (min–max) over the repetitions; ours ÷ R is the ratio of the medians on the same client.',
    '',
    '**kafkajs**',
    '',
    clientTable(run, 'kafkajs'),
    '',
    '**@platformatic/kafka** (ours on KIP-848, its default on this broker; R classic, as R on kafkajs)',
    '',
    clientTable(run, 'platformatic'),
    '',
    // The third client's table, when the run has its sides (its build loaded: lib/sides.mjs).
    ...(hasConfluent(run)
      ? [
          `**${CONFLUENT}** (ours and R classic: \`'auto'\` is classic on this client; benchmark 12 also KIP-848)`,
          '',
          clientTable(run, 'confluent'),
          '',
        ]
      : []),
  ];
  const notes = [];
  if (groups.length)
    notes.push(
      `groups left after 50 start/stop cycles with 10 crashes: ${groups.join(', ')}, R ${count(b('5').rows[0].base?.median)}`,
    );
  if (heartbeat)
    notes.push(
      `heartbeats of 10 idle instances ${count(heartbeat.ours?.median)} per minute (ideal 30)`,
    );
  if (missing)
    notes.push(
      `deliveries missing in #3: ${missing.note?.replace(/^all four sides: /, '') ?? num(missing.ours?.median)}`,
    );
  if (notes.length) out.push(`Also in this run (one side, or counts): ${notes.join('; ')}.`, '');
  const cold = b('7')?.summary?.cold;
  if (cold) {
    const m = (label) => cold[label]?.uptimeMs?.median;
    const node = m('node');
    const imports = [
      ['kafkajs', 'import-kafkajs'],
      ['@platformatic/kafka', 'import-platformatic'],
      ...(cold['import-confluent'] ? [[CONFLUENT, 'import-confluent']] : []),
      ['`nestjs-kafka-broadcast/engine`', 'import-engine-entry'],
      ['`nestjs-kafka-broadcast` (with the Nest module)', 'import-barrel'],
    ].map(([name, label]) => `${name} ${num(m(label) - node)} ms`);
    out.push(
      `Process-cold imports (process start → imported, less Node's own start of ${num(node)} ms; medians of the same series): ${imports.join(', ')}.`,
      '',
    );
  } else {
    out.push(
      'This run predates the process-cold series timed from process start (benchmark 7).',
      '',
    );
  }
  return out.join('\n');
}

/** Replaces the lines between `<!-- report:<name>:start -->` and its end marker in `text`. */
function replaceSection(text, name, body) {
  const open = `<!-- report:${name}:start -->`;
  const close = `<!-- report:${name}:end -->`;
  const i = text.indexOf(open);
  const j = text.indexOf(close);
  if (i < 0 || j < i) throw new Error(`docs/BENCHMARKS.md has no ${open} … ${close}`);
  return `${text.slice(0, i + open.length)}\n\n${body.trim()}\n\n${text.slice(j)}`;
}

/** What each part of a receipt costs: bench/ab-receipts.mjs's file of the receipt variants. */
function receiptVariantsSection(file) {
  const v = read(file);
  const what = {
    before: 'before: every instance reads every acknowledgement',
    library:
      'the library before `expected`: the look before the send; only an instance with a receipt waiting fetches the acknowledgements',
    look: "this build, `expected: 'look'` (the default): the same",
    roster:
      "this build, `expected: 'roster'`: the roster's latest refresh, no look before the send",
    background: 'the library with the background roster view instead of the look',
    publisher: 'only the publisher reads the acknowledgements',
    both: 'both',
  };
  what.this = what.library;
  const clients = Object.keys(v.results);
  // A plain publish runs the same code in every build: its samples pooled over the builds give
  // every receipt one denominator, steadier on a loaded box than each build's own.
  const pooled = Object.fromEntries(
    clients.map((c) => [
      c,
      summary(Object.values(v.results[c].samples).flatMap((x) => x.plain)).median,
    ]),
  );
  const lines = [
    `| Build | ${clients.map((c) => `${c}: receipt, plain (ms) | ÷ | ÷ pooled plain`).join(' | ')} |`,
    `| --- | ${clients.map(() => '--- | --- | ---').join(' | ')} |`,
  ];
  for (const name of Object.keys(v.builds)) {
    const cells = clients.map((c) => {
      const t = v.results[c].table[name];
      return `${num(t.receipt.median)}, ${num(t.plain.median)} | ${ratioText(t.ratio)} | ${ratioText(t.receipt.median / pooled[c])}`;
    });
    lines.push(`| ${what[name] ?? name} | ${cells.join(' | ')} |`);
  }
  const loads = clients.flatMap((c) => v.results[c].loadavg);
  return (
    `${lines.join('\n')}\n\n\`${relative(REPO_ROOT, file)}\`, ${v.startedAt.slice(0, 10)} ` +
    `${v.startedAt.slice(11, 16)}–${v.endedAt.slice(11, 16)} UTC, build \`${v.library.commit.slice(0, 7)}\`, ` +
    `${v.reps} repetitions of each build, the order rotating, medians; ten lock-free engines per ` +
    `build in one process; load average ${num(Math.min(...loads))}–${num(Math.max(...loads))}.`
  );
}

const run = read(args.run);
const fleetFiles = (args.fleets?.split(',') ?? FLEET_FILES.map((f) => join(RESULTS, f))).map(
  (f) => ({
    file: f,
    run: read(f),
  }),
);
const variants = join(RESULTS, 'receipts-variants.json');
const sections = {
  'full-run': runSection(run, args.run),
  fleet: fleetSection(fleetFiles),
  ...(existsSync(variants) && { 'receipts-variants': receiptVariantsSection(variants) }),
};
if (!args.write) {
  for (const body of Object.values(sections)) console.log(`${body}\n`);
} else {
  let text = readFileSync(DOC, 'utf8');
  for (const [name, body] of Object.entries(sections)) text = replaceSection(text, name, body);
  writeFileSync(DOC, text);
  execFileSync(join(REPO_ROOT, 'node_modules', '.bin', 'prettier'), ['--write', DOC], {
    stdio: 'ignore',
  });
  console.log(`updated ${relative(REPO_ROOT, DOC)}`);
}
