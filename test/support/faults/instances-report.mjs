// Renders the figures the fault tests record (test/.results/reliability/*.json, one file per
// scenario, written by recordReliability() in test/support/faults/faults.ts) as the Markdown table of
// libs/broadcast/docs/RELIABILITY.md.
//
//   node test/support/faults/instances-report.mjs            prints the table
//   node test/support/faults/instances-report.mjs --write    replaces the table in libs/broadcast/docs/RELIABILITY.md
//                                                     (between the reliability-table markers)
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const RESULTS = join(ROOT, 'test/.results/reliability');
const DOC = join(ROOT, 'libs/broadcast/docs/RELIABILITY.md');
const START = '<!-- reliability-table:start -->';
const END = '<!-- reliability-table:end -->';

/** Table order; scenarios not listed follow alphabetically. */
const ORDER = [
  'concurrent-starts-postgres',
  'concurrent-starts-mariadb',
  'concurrent-starts-none',
  'crash-reuse',
  'crash-restarts',
  'broker-outage',
  'coordinator-failover',
  'lock-loss-postgres',
  'lock-loss-mariadb',
  'new-partitions',
  'bad-input',
  'bad-handlers-throw',
  'bad-handlers-hang',
  'bad-handlers-hang-beyond-session',
  'config-sqlite-lock-free',
];

const STANDARD = new Set([
  'scenario',
  'instances',
  'crashes',
  'outageMs',
  'sent',
  'deliveriesExpected',
  'received',
  'lost',
  'groupsBefore',
  'groupsAfter',
  'recoverMs',
  'recordedAt',
]);

function ms(value) {
  if (value === null || value === undefined) return '—';
  return value >= 10_000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`;
}

function count(value) {
  if (value === undefined || value === null) return '—';
  return Array.isArray(value) ? String(value.length) : String(value);
}

function detail(key, value) {
  const text = Array.isArray(value)
    ? value.join('/')
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value);
  return `${key} ${key.endsWith('Ms') && typeof value === 'number' ? ms(value) : text}`;
}

export function loadResults(dir = RESULTS) {
  if (!existsSync(dir)) return [];
  const results = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')));
  const rank = (s) => (ORDER.includes(s) ? ORDER.indexOf(s) : ORDER.length);
  return results.sort(
    (a, b) => rank(a.scenario) - rank(b.scenario) || a.scenario.localeCompare(b.scenario),
  );
}

export function renderTable(results) {
  const head =
    '| Scenario | Instances | Crashes | Outage | Messages sent | Deliveries received / expected | Lost | Groups before → after | Time to recover | Other figures |\n' +
    '|---|---|---|---|---|---|---|---|---|---|';
  const rows = results.map((r) => {
    const deliveries =
      r.deliveriesExpected === undefined
        ? `${r.received}`
        : `${r.received} / ${r.deliveriesExpected}`;
    const extras = Object.entries(r)
      .filter(([k]) => !STANDARD.has(k))
      .map(([k, v]) => detail(k, v))
      .join('; ');
    return `| ${r.scenario} | ${r.instances} | ${r.crashes ?? 0} | ${r.outageMs ? ms(r.outageMs) : '—'} | ${r.sent} | ${deliveries} | ${r.lost} | ${count(r.groupsBefore)} → ${count(r.groupsAfter)} | ${ms(r.recoverMs)} | ${extras} |`;
  });
  const dates = results
    .map((r) => r.recordedAt)
    .filter(Boolean)
    .sort();
  const when = dates.length ? `\n\nRecorded ${dates[0]} – ${dates.at(-1)}.` : '';
  return `${head}\n${rows.join('\n')}${when}`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const results = loadResults();
  if (results.length === 0) {
    console.error(`no results in ${RESULTS}: run \`npx vitest run test/faults-\` first`);
    process.exit(1);
  }
  const table = renderTable(results);
  if (process.argv.includes('--write')) {
    const doc = readFileSync(DOC, 'utf8');
    const from = doc.indexOf(START);
    const to = doc.indexOf(END);
    if (from < 0 || to < from) throw new Error(`${DOC} lacks the ${START} / ${END} markers`);
    writeFileSync(DOC, `${doc.slice(0, from + START.length)}\n${table}\n${doc.slice(to)}`);
    console.log(`updated ${DOC} from ${results.length} scenario(s)`);
  } else {
    console.log(table);
  }
}
