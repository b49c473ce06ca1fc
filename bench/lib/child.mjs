// Child processes running bench/instance.mjs, with its READY / GOT / STOPPED stdout protocol.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_DIR, REPO_ROOT, debug } from './common.mjs';

const live = new Set();

/** Kills every child still running (on the way out of a failed benchmark). */
export function killAllChildren() {
  for (const child of live) child.proc.kill('SIGKILL');
}
process.on('exit', killAllChildren);

export function spawnInstance({
  mode,
  brokers,
  prefix,
  topic = 'events',
  sessionTimeoutMs,
  heartbeatMs,
  client,
  extraArgs = [],
  env,
}) {
  const argv = [
    join(BENCH_DIR, 'instance.mjs'),
    `--mode=${mode}`,
    `--prefix=${prefix}`,
    `--topic=${topic}`,
  ];
  if (brokers) argv.push(`--brokers=${brokers.join(',')}`);
  if (sessionTimeoutMs) argv.push(`--session-timeout=${sessionTimeoutMs}`);
  if (heartbeatMs) argv.push(`--heartbeat-ms=${heartbeatMs}`);
  if (client) argv.push(`--client=${client}`);
  argv.push(...extraArgs);
  const proc = spawn(process.execPath, argv, {
    cwd: REPO_ROOT,
    env: env ? { ...process.env, ...env } : process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const child = {
    proc,
    pid: proc.pid,
    lines: [],
    stderr: '',
    info: undefined,
    waiters: [],
  };
  live.add(child);
  let buffer = '';
  proc.stdout.setEncoding('utf8');
  proc.stdout.on('data', (chunk) => {
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      child.lines.push(line);
      for (const w of child.waiters) w(line); // done() replaces the array, never mutates it
    }
  });
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (chunk) => {
    child.stderr += chunk;
    debug(`[child ${proc.pid}] ${chunk.trimEnd()}`);
  });
  child.exited = new Promise((resolve) =>
    proc.on('exit', (code, signal) => {
      live.delete(child);
      for (const w of child.waiters) w(undefined);
      resolve({ code, signal });
    }),
  );
  /** Resolves with the first stdout line (already seen or future) that `match` accepts. */
  child.waitLine = (match, timeoutMs = 60_000) =>
    new Promise((resolve, reject) => {
      const found = child.lines.find(match);
      if (found) return resolve(found);
      const timer = setTimeout(
        () =>
          done(
            new Error(
              `child ${proc.pid}: no matching line within ${timeoutMs} ms\n${child.stderr.slice(-2000)}`,
            ),
          ),
        timeoutMs,
      );
      const waiter = (line) => {
        if (line === undefined)
          return done(
            new Error(
              `child ${proc.pid} exited before the expected line\n${child.stderr.slice(-2000)}`,
            ),
          );
        if (match(line)) done(undefined, line);
      };
      function done(error, line) {
        clearTimeout(timer);
        child.waiters = child.waiters.filter((w) => w !== waiter);
        if (error) reject(error);
        else resolve(line);
      }
      child.waiters.push(waiter);
    });
  child.ready = child
    .waitLine((l) => l.startsWith('READY '))
    .then((line) => (child.info = JSON.parse(line.slice('READY '.length))));
  child.ready.catch(() => {});
  return child;
}

/** Resident set size of a live process, from /proc/<pid>/status (Linux). */
export function rssKiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(status);
  return m ? Number(m[1]) : NaN;
}
