/**
 * The package README's quick start, made as a new user makes it (#21, #28): the README's
 * `npx @nestjs/cli@<tag> new <name>` (the CLI from the registry; it runs the scaffold's
 * `npm install`), its npm commands (the tarball in place of the package name), its titled blocks
 * written over or beside the generated files, then the app's own scripts (`npm test`,
 * `npm run build`) and instances of its start script. Nothing of the app comes from here. What
 * the README must look like: test/support/package/readme-quick-start.ts. Every npm and npx call goes
 * through the matrix's cache (the machine's, NPM_CACHE in package-apps.ts) with --prefer-offline,
 * as the other cells' installs do: a later run, from any clone, downloads nothing (and keeps the
 * `@latest` it resolved).
 */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify, stripVTControlCharacters } from 'node:util';
import { NPM_CACHE } from './package-apps.js';
import type { QuickStart } from './readme-quick-start.js';

const run = promisify(execFile);
const PACKAGE_NAME = 'nestjs-kafka-broadcast';

/** How long each step of createReadmeApp() took, in ms. */
export interface ReadmeAppTimings {
  scaffoldMs: number;
  installMs: number;
}

/**
 * The environment of every npm, npx and app process of the cell: npm's cache shared with the
 * other cells, no update check, and none of the running Vitest's own variables (the app's
 * `vitest run` is a run of its own).
 */
export function appEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // The Node running the tests first: npm, npx, nest and vitest start through `env node`.
    PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
    npm_config_cache: NPM_CACHE,
    npm_config_prefer_offline: 'true',
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    ...extra,
  };
  for (const key of Object.keys(env)) if (/^VITEST|^VITE_/.test(key)) delete env[key];
  delete env.NODE_ENV;
  delete env.TEST;
  return env;
}

/**
 * `nest new` in a temp folder (with --skip-git: no repository needed), then the README's npm
 * commands in the app. Returns the folder holding the app folder (remove it when done) and the app.
 */
export async function createReadmeApp(
  quickStart: QuickStart,
  tarball: string,
  timings: Partial<ReadmeAppTimings> = {},
): Promise<{ root: string; dir: string }> {
  const root = await mkdtemp(join(tmpdir(), 'nkb-matrix-readme-quick-start-'));
  const dir = join(root, quickStart.appName);
  try {
    let t0 = Date.now();
    const args = ['--yes', quickStart.cli, 'new', ...quickStart.newArgs, '--skip-git'];
    await run('npx', args, { cwd: root, env: appEnv(), maxBuffer: 16 << 20 }).catch(
      (error: { stdout?: string; stderr?: string }) => {
        throw new Error(`npx ${args.join(' ')} failed:\n${error.stdout}\n${error.stderr}`);
      },
    );
    timings.scaffoldMs = Date.now() - t0;
    t0 = Date.now();
    for (const npmArgs of quickStart.npm) {
      const withTarball = npmArgs.map((a) => (a === PACKAGE_NAME ? tarball : a));
      await run('npm', withTarball, { cwd: dir, env: appEnv(), maxBuffer: 16 << 20 });
    }
    timings.installMs = Date.now() - t0;
    for (const [path, content] of quickStart.files) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), content);
    }
    return { root, dir };
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}

/** The versions the scaffold brought: `@nestjs/cli`, `@nestjs/core`, `typescript`, `vitest`. */
export async function scaffoldVersions(dir: string): Promise<Record<string, string>> {
  const versions: Record<string, string> = {};
  for (const name of ['@nestjs/cli', '@nestjs/core', 'typescript', 'vitest']) {
    const file = join(dir, 'node_modules', name, 'package.json');
    versions[name] = (JSON.parse(await readFile(file, 'utf8')) as { version: string }).version;
  }
  return versions;
}

/** `npm test` / `npm run <script>` in the app; rejects with its output if it fails. */
export async function runAppScript(
  dir: string,
  script: string,
  env: NodeJS.ProcessEnv = appEnv(),
): Promise<string> {
  const args = script === 'test' ? ['test'] : ['run', script];
  try {
    const { stdout, stderr } = await run('npm', args, { cwd: dir, env, maxBuffer: 16 << 20 });
    return stripVTControlCharacters(`${stdout}\n${stderr}`);
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`npm ${args.join(' ')} failed:\n${stdout}\n${stderr}`);
  }
}

/** The entry a start script runs: `node dist/main` → `dist/main`; anything else is refused. */
export async function startScriptEntry(dir: string, script: string): Promise<string> {
  const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  const command = pkg.scripts?.[script];
  const m = /^node (\S+)$/.exec(command ?? '');
  if (!m)
    throw new Error(`the app's script ${script} is ${JSON.stringify(command)}, not node <entry>`);
  return m[1];
}

/** A TCP port nothing listens on right now, for an instance's HTTP server. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Preloaded (NODE_OPTIONS --require) into the unit test's processes: appends every TCP connect
 * they attempt (net and tls both go through Socket#connect) to $NKB_CONNECT_LOG.
 */
const CONNECT_RECORDER = `'use strict';
const net = require('node:net');
const { appendFileSync } = require('node:fs');
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  let options = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (typeof options !== 'object' || options === null) options = { port: args[0], host: args[1] };
  if (options.port !== undefined) {
    appendFileSync(process.env.NKB_CONNECT_LOG, JSON.stringify({ host: options.host, port: options.port }) + '\\n');
  }
  return connect.apply(this, args);
};
`;

export interface AppTestRun {
  /** What `npm test` printed (stdout and stderr), colours removed. */
  output: string;
  /** TCP connects the test's processes attempted: none, for a test that needs no broker. */
  connects: { host?: string; port: number }[];
  /** What the recorder saw of a connect made on purpose: proves it records. */
  probe: { host?: string; port: number }[];
}

/**
 * Runs the app's `npm test` with no KAFKA_BROKERS (the app then points at localhost:9092, closed
 * here) and every TCP connect of npm, Vitest and its workers recorded. Rejects if it fails.
 */
export async function runAppTest(root: string, dir: string): Promise<AppTestRun> {
  const recorder = join(root, 'connect-recorder.cjs');
  const log = join(root, 'connects.jsonl');
  await writeFile(recorder, CONNECT_RECORDER);
  const env = appEnv({ NODE_OPTIONS: `--require ${recorder}`, NKB_CONNECT_LOG: log });
  delete env.KAFKA_BROKERS;
  delete env.BROADCAST_TOPIC_PREFIX;
  const read = async () =>
    (await readFile(log, 'utf8').catch(() => ''))
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { host?: string; port: number });

  const probeScript = `require('node:net').connect(9, '127.0.0.1').on('error', () => {});`;
  await run(process.execPath, ['-e', probeScript], { cwd: dir, env });
  const probe = await read();
  await rm(log, { force: true });
  const output = await runAppScript(dir, 'test', env);
  return { output, connects: await read(), probe };
}

/**
 * One instance of the README app: its start script's `node <entry>` (`PORT=<n> npm run start:prod`
 * without npm in between, so that SIGTERM reaches the app itself), its output collected.
 */
export class ReadmeAppInstance {
  private readonly child: ChildProcessWithoutNullStreams;
  private output = '';
  /** Resolves the exit code, or the signal that ended the process. */
  readonly exited: Promise<number | string | null>;

  constructor(
    dir: string,
    entry: string,
    portVariable: string,
    readonly port: number,
    env: Record<string, string>,
  ) {
    this.child = spawn(process.execPath, [entry], {
      cwd: dir,
      env: appEnv({ ...env, [portVariable]: String(port) }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const collect = (chunk: Buffer) => (this.output += stripVTControlCharacters(chunk.toString()));
    this.child.stdout.on('data', collect);
    this.child.stderr.on('data', collect);
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => resolve(code ?? signal)),
    );
  }

  /** Everything it printed (stdout and stderr), colours removed. */
  get log(): string {
    return this.output;
  }

  /** Resolves once `text` is in its output from character `from` on, within the deadline. */
  async waitFor(text: string, from = 0, timeoutMs = 90_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.output.indexOf(text, from) >= 0) return;
      if (this.child.exitCode !== null || this.child.signalCode !== null || Date.now() > deadline) {
        throw new Error(
          `no ${JSON.stringify(text)} (exit ${this.child.exitCode}); output:\n${this.output}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** SIGTERM, then how it ended (a Nest app with shutdown hooks re-raises the signal). */
  async terminate(): Promise<number | string | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    return this.exited;
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}
