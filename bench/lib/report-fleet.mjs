// The fleet table of docs/BENCHMARKS.md (bench/report.mjs): for every fleet file, ours at its
// largest N in each mode against R of the same run, one run each. "Requests / start" is every
// request of the fleet while it starts (the fetches of instances already ready too) over N.
import { basename } from 'node:path';
import { count, num, ratioText } from './report-format.mjs';

const MODES = {
  lockfree: 'lock-free, `maxGroups` = N',
  'lockfree-x2': 'lock-free, `maxGroups` = 2N',
  postgres: 'PostgreSQL locks',
  mariadb: 'MariaDB locks',
};
/** issue 29's fleet targets: all ready within 1.5× R lock-free, 1.2× R with locks. */
const TARGET = { lockfree: 1.5, 'lockfree-x2': 1.5, postgres: 1.2, mariadb: 1.2 };
/** The package of each `--client`. */
const PACKAGE = {
  kafkajs: 'kafkajs',
  platformatic: '@platformatic/kafka',
  confluent: '@confluentinc/kafka-javascript',
};

/** `files`: [{ file, run }] of b11-fleet.mjs results. */
export function fleetSection(files) {
  const lines = [
    '| Broker | Client | Ours | N | All ready (R) | ÷ R | Target | Median ready (R) | Client CPU / start (R) | Requests / start (R) | Broker CPU / start (R) | Idle requests/s (R) | RSS / instance (R) | Groups left after stop (R) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  const sources = [];
  for (const { file, run } of files) {
    const n = Math.max(...run.rows.map((r) => r.n));
    const at = run.rows.filter((r) => r.n === n);
    const raw = at.find((r) => r.mode === 'raw');
    const broker = run.cluster?.nodes === 3 ? '3 nodes, broker defaults' : 'one node';
    const client = (r) =>
      `${PACKAGE[r.client] ?? r.client} ${r.protocol === 'consumer' ? 'KIP-848' : 'classic'}`;
    const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
    const both = (r, key, f) => `${f(r[key])} (${raw ? f(raw[key]) : '–'})`;
    const ms = (v) => `${num(v)} ms`;
    const mib = (v) => `${num(v)} MiB`;
    for (const r of at.filter((x) => MODES[x.mode])) {
      const q = raw ? r.allReadyMs / raw.allReadyMs : undefined;
      const met = q === undefined ? '' : q <= TARGET[r.mode] ? ' ✅' : ' ❌';
      lines.push(
        `| ${broker} | ${client(r)} | ${MODES[r.mode]} | ${n} | ${both(r, 'allReadyMs', s)} | **${ratioText(q)}**${met} | ≤ ${TARGET[r.mode]} | ${both(r, 'medianReadyMs', s)} | ${both(r, 'clientCpuMsPerStart', ms)} | ${both(r, 'startRequests', (v) => (v === null ? '–' : num(v / n)))} | ${both(r, 'brokerCpuMsPerStart', ms)} | ${both(r, 'idleRequestsPerSec', count)} | ${both(r, 'rssMiBPerInstance', mib)} | ${both(r, 'groupsLeftAfterStop', count)} |`,
      );
    }
    const start = run.date ? `${run.date.slice(0, 10)} ${run.date.slice(11, 16)} UTC` : '';
    const load = run.machine?.loadavg
      ? `, load ${num(run.machine.loadavg[0])} → ${num(run.machine.loadavgEnd?.[0])}`
      : '';
    const heartbeat = run.args?.['heartbeat-ms']
      ? `, heartbeat ${run.args['heartbeat-ms']} ms`
      : '';
    sources.push(
      `\`${basename(file)}\` (${start}${load}${heartbeat}, sizes ${run.args?.sizes ?? n})`,
    );
  }
  return `${lines.join('\n')}\n\nOne run per file, 10 child processes: ${sources.join('; ')}.`;
}
