// Start-up as an app runs it: one engine per child process (startup-child.mjs, startup-child.cjs,
// startup-nest-child.mjs), nothing else keeping the event loop alive, its exit code and output
// recorded. The test runner keeps its own loop alive, so only a child can show a process that
// ends silently while start() is still pending.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BroadcastModuleOptions } from 'nestjs-kafka-broadcast';
import { REPO_ROOT } from '../../../scripts/kafka-cluster.mjs';
import { copyLibAssets } from '../../../scripts/lib-assets.mjs';
import { ensureLibBuilt } from '../faults/faults.js';

/**
 * How the child starts the engine: ESM top-level await, CommonJS `void start()`, or a Nest app;
 * 'stop-publish': ESM, publishing around its stop() (stop-publish-child.mjs).
 */
export type StartupChildKind = 'esm' | 'cjs' | 'nest' | 'nest-async' | 'stop-publish';

const SCRIPTS: Record<StartupChildKind, string> = {
  esm: 'startup-child.mjs',
  cjs: 'startup-child.cjs',
  nest: 'startup-nest-child.mjs',
  'nest-async': 'startup-nest-child.mjs',
  'stop-publish': 'stop-publish-child.mjs',
};

/**
 * The CommonJS build of the library (tsconfig.cjs.json, as `npm run build:lib` makes dist/cjs) next
 * to ensureLibBuilt's ESM build of the same source version; returns the path of its index.js.
 */
export function ensureCjsLibBuilt(): string {
  const version = dirname(dirname(fileURLToPath(ensureLibBuilt())));
  const dir = join(version, 'cjs');
  if (!existsSync(join(dir, 'complete'))) {
    const building = `${dir}.${process.pid}.tmp`;
    rmSync(building, { recursive: true, force: true });
    mkdirSync(building, { recursive: true });
    execFileSync(
      process.execPath,
      [
        join(REPO_ROOT, 'node_modules/typescript/bin/tsc'),
        '-p',
        'libs/broadcast/tsconfig.cjs.json',
        '--outDir',
        building,
      ],
      { cwd: REPO_ROOT, stdio: 'pipe', timeout: 300_000 },
    );
    copyLibAssets([building]);
    writeFileSync(join(building, 'package.json'), '{"type":"commonjs"}\n');
    writeFileSync(join(building, 'complete'), new Date().toISOString());
    // Another worker may have finished the same build meanwhile: keep its copy.
    if (existsSync(join(dir, 'complete'))) rmSync(building, { recursive: true, force: true });
    else {
      rmSync(dir, { recursive: true, force: true });
      renameSync(building, dir);
    }
  }
  return join(dir, 'index.js');
}

export interface StartupChildRun {
  kind: StartupChildKind;
  /** null when it ended by a signal (or had to be killed). */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** From spawn to exit. */
  elapsedMs: number;
  /** When it exited (epoch ms). */
  exitedAt: number;
  /** True when it was still running at the deadline and was killed. */
  killed: boolean;
}

export interface StartupChildOptions {
  /** JSON-able module options (functions cannot cross; see pgLocks). */
  options: Partial<BroadcastModuleOptions> & Record<string, unknown>;
  /** Advisory locks of a `pg` pool whose connections carry this application_name. */
  pgLocks?: string;
  /** Killed with SIGKILL when still running this long after spawn. */
  deadlineMs: number;
  /** Sends SIGTERM once stdout or stderr matched this (the child is then waiting in start()). */
  sigtermWhen?: RegExp;
  env?: Record<string, string>;
}

/** Runs one child until it exits (or the deadline kills it). */
export function runStartupChild(
  kind: StartupChildKind,
  { options, pgLocks, deadlineMs, sigtermWhen, env = {} }: StartupChildOptions,
): Promise<StartupChildRun> {
  const lib = ensureLibBuilt();
  const cjs = kind === 'cjs' ? ensureCjsLibBuilt() : '';
  const started = Date.now();
  const child = spawn(process.execPath, [join(REPO_ROOT, 'test/support/nest', SCRIPTS[kind])], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      BROADCAST_LIB: lib,
      BROADCAST_LIB_CJS: cjs,
      STARTUP_OPTIONS: JSON.stringify(options),
      ...(pgLocks && { STARTUP_PG_LOCKS: pgLocks }),
      ...(kind === 'nest-async' && { STARTUP_ASYNC: '1' }),
      // Nest colours its lines on a TTY only; the test reads plain text either way.
      NO_COLOR: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let signalled = false;
  const watch = () => {
    if (!sigtermWhen || signalled || !sigtermWhen.test(stdout + stderr)) return;
    signalled = true;
    child.kill('SIGTERM');
  };
  child.stdout.on('data', (d: Buffer) => ((stdout += d.toString()), watch()));
  child.stderr.on('data', (d: Buffer) => ((stderr += d.toString()), watch()));
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, deadlineMs);
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      const exitedAt = Date.now();
      clearTimeout(timer);
      // The pipes may still hold the last lines: wait for them to close.
      let open = 2;
      const done = () =>
        --open === 0 &&
        resolve({
          kind,
          code,
          signal,
          stdout,
          stderr,
          elapsedMs: exitedAt - started,
          exitedAt,
          killed,
        });
      if (child.stdout.readableEnded) done();
      else child.stdout.on('end', done);
      if (child.stderr.readableEnded) done();
      else child.stderr.on('end', done);
    });
  });
}

/** One line per run for the spec's figures: kind, exit, time, the first line of stderr. */
export function describeRun(label: string, run: StartupChildRun): string {
  const lines = run.stderr.split('\n');
  // The error's own line (Node prints the throwing source line first), else the first one.
  const first = lines.find((l) => /Error\b.*: /.test(l)) ?? lines.find((l) => l.trim()) ?? '';
  return `${label} ${run.kind}: exit ${run.code ?? run.signal}${run.killed ? ' (killed at the deadline)' : ''} after ${run.elapsedMs} ms; stderr ${run.stderr.split('\n').length} line(s): ${first.slice(0, 160)}`;
}

/** One warning matching `warning`, before the error (`expected`) where both go to stderr. */
export function expectWarnedFirst(run: StartupChildRun, warning: RegExp, expected: RegExp) {
  const output = `${run.kind}: exit ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
  const lines = `${run.stdout}\n${run.stderr}`.split('\n');
  expect(
    lines.filter((l) => warning.test(l)),
    output,
  ).toHaveLength(1);
  if (run.kind.startsWith('nest')) return;
  const stderr = run.stderr.split('\n');
  const warnedAt = stderr.findIndex((l) => warning.test(l));
  const failedAt = stderr.findIndex((l) => !warning.test(l) && expected.test(l));
  expect(warnedAt, output).toBeGreaterThanOrEqual(0);
  expect(warnedAt, output).toBeLessThan(failedAt);
}
