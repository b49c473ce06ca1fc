#!/usr/bin/env node
// Where a CI run's CPU went (issue #39): reads the JSON lines test/support/cpu-per-file.ts wrote
// (CI_CPU_LOG, one file per pass) and the machine's /proc/stat before and after, and prints the
// machine's busy CPU against what two cores could give, and the files that used the most (their
// worker's own CPU and their reaped children's: apps, npm, tsc, brokers of their own).
//
//   node scripts/cpu-summary.mjs <"cpu <first line of /proc/stat at the start>"> <log>...
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { cpuSeconds } from './proc-cpu.mjs';

const [before, ...logs] = process.argv.slice(2);
/** busy and total jiffies from a /proc/stat "cpu" line. */
function jiffies(line) {
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const busy = user + nice + system + irq + softirq + steal;
  return { busy, total: busy + idle + iowait };
}
const now = readFileSync('/proc/stat', 'utf8').split('\n')[0];
const a = jiffies(before);
const b = jiffies(now);
const busyS = (b.busy - a.busy) / 100;
const totalS = (b.total - a.total) / 100;
const rows = [];
for (const log of logs) {
  if (!existsSync(log)) continue;
  const pass = log.replace(/^.*\/cpu-|\.jsonl$/g, '');
  for (const line of readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
    const r = JSON.parse(line);
    rows.push({ ...r, pass, cpuS: r.ownS + r.childrenS });
  }
}
const filesS = rows.reduce((sum, r) => sum + r.cpuS, 0);
const ownS = rows.reduce((sum, r) => sum + r.ownS, 0);
/** The shared broker's CPU since its start (.kafka/state.json: the CLI's broker CI started). */
function brokerS() {
  try {
    const state = JSON.parse(readFileSync('.kafka/state.json', 'utf8'));
    const sum = state.nodes.reduce((s, { pid }) => s + cpuSeconds(pid).own, 0);
    return `${Math.round(sum)} s`;
  } catch {
    return 'unknown';
  }
}
console.error(
  `CPU: the machine was busy ${Math.round(busyS)} of ${Math.round(totalS)} core-seconds ` +
    `(${cpus().length} cores, ${Math.round((100 * busyS) / totalS)} %); ${rows.length} spec ` +
    `file runs and their children ${Math.round(filesS)} s (the workers' own ${Math.round(ownS)} s); ` +
    `the shared broker since its start ${brokerS()}; the rest is Vitest's main processes and the databases`,
);
const top = rows.sort((x, y) => y.cpuS - x.cpuS).slice(0, 20);
console.error(
  `CPU: most per file: ${top
    .map(
      (r) =>
        `${r.file}${r.pass === 'suite' ? '' : ` [${r.pass}]`} ${Math.round(r.cpuS)} s (own ${Math.round(r.ownS)}, wall ${Math.round(r.wallS)})`,
    )
    .join(', ')}`,
);
