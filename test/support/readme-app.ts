/**
 * The package README's quick start, made as a new user makes it (#21): in an empty folder, the
 * README's setup commands (npm init, npm install, with the packed tarball in place of the package
 * name), its titled blocks written at their paths (```ts title="src/main.ts"```), its build command,
 * then instances started and asked as its run block says. Nothing of the app comes from here: a
 * quick start that is not enough to make a working app fails test/package-matrix.spec.ts.
 *
 * The README's shape this reads, in its `## Quick start…` section: the first ```bash block holds
 * only `npm …` commands; the last holds `npx tsc`, `PORT=<n> node <entry> &` lines, one
 * `curl -X <METHOD> localhost:<n><path>` and `# both instances log: <text>`. Any other line fails
 * with the line named, so that a README change is met here on purpose.
 */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify, stripVTControlCharacters } from 'node:util';
import { NPM_CACHE, REPO_ROOT } from './package-apps.js';
import { readmeBlocks } from './readme-blocks.js';

const run = promisify(execFile);
export const PACKAGE_README = join(REPO_ROOT, 'libs', 'broadcast', 'README.md');
const PACKAGE_NAME = 'nestjs-kafka-broadcast';

/** What the README's quick start says to do, read from its blocks. */
export interface QuickStart {
  /** The setup commands, as npm arguments (`['install', '-D', 'typescript', …]`). */
  npm: string[][];
  /** path (relative to the app folder) → content, from the titled blocks. */
  files: Map<string, string>;
  /** The environment variable that sets an instance's HTTP port (`PORT`). */
  portVariable: string;
  /** The compiled entry each instance runs (`dist/main.js`). */
  entry: string;
  /** The request that publishes: sent to the first instance. */
  request: { method: string; path: string };
  /** What every instance logs once the broadcast reached it. */
  expectedLog: string;
  /** The compiled unit test (`dist/app.test.js`), from the titled `src/*.test.ts` block. */
  unitTest: string;
}

function fail(line: string, why: string): never {
  throw new Error(`README quick start: ${why}: ${JSON.stringify(line)}`);
}

/** Reads the quick start from the package README. */
export async function readQuickStart(readme = PACKAGE_README): Promise<QuickStart> {
  const blocks = readmeBlocks(readme, await readFile(readme, 'utf8'));
  const bash = blocks.filter((b) => b.lang === 'bash' && /^Quick start\b/.test(b.section));
  if (bash.length < 2)
    throw new Error('README quick start: expected a setup and a run ```bash block');
  const commands = (code: string) =>
    code
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '');

  const npm = commands(bash[0].code).map((line) => {
    const [tool, ...args] = line.split(/\s+/);
    if (tool !== 'npm') fail(line, 'a setup line that is not an npm command');
    return args;
  });

  const files = new Map<string, string>();
  for (const block of blocks.filter((b) => b.title)) {
    if (files.has(block.title!)) fail(block.title!, 'two blocks titled');
    files.set(block.title!, `${block.code}\n`);
  }

  let entry = '';
  let portVariable = '';
  let request: QuickStart['request'] | undefined;
  let expectedLog = '';
  for (const line of commands(bash[bash.length - 1].code)) {
    let m: RegExpExecArray | null;
    if (line === 'npx tsc') continue;
    if ((m = /^(\w+)=\d+ node (\S+) &$/.exec(line))) [portVariable, entry] = [m[1], m[2]];
    else if ((m = /^curl -X (\w+) localhost:\d+(\/\S*)$/.exec(line)))
      request = { method: m[1], path: m[2] };
    else if ((m = /^# both instances log: (.+)$/.exec(line))) expectedLog = m[1];
    else fail(line, 'a run line this test does not know');
  }
  if (!entry || !request || !expectedLog) {
    throw new Error('README quick start: the run block lacks an instance, a curl or the log line');
  }
  const test = [...files.keys()].find((path) => /^src\/.*\.test\.ts$/.test(path));
  if (!test) throw new Error('README: no block titled src/….test.ts (the unit test)');
  const unitTest = test.replace(/^src\//, 'dist/').replace(/\.ts$/, '.js');
  return { npm, files, portVariable, entry, request, expectedLog, unitTest };
}

/** How long each step of createReadmeApp() took, in ms. */
export interface ReadmeAppTimings {
  installMs: number;
  buildMs: number;
}

/**
 * An empty folder, then the README's npm commands (the package from `tarball`; npm's cache shared
 * with the other cells), its files, and `tsc` (what `npx tsc` runs). Returns the folder.
 */
export async function createReadmeApp(
  quickStart: QuickStart,
  tarball: string,
  timings: Partial<ReadmeAppTimings> = {},
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'nkb-matrix-readme-quick-start-'));
  try {
    let t0 = Date.now();
    for (const args of quickStart.npm) {
      const [command] = args;
      const extra =
        command === 'install' || command === 'i'
          ? ['--no-audit', '--no-fund', '--prefer-offline', '--cache', NPM_CACHE]
          : [];
      const withTarball = args.map((a) => (a === PACKAGE_NAME ? tarball : a));
      await run('npm', [...withTarball, ...extra], { cwd: dir, maxBuffer: 16 << 20 });
    }
    timings.installMs = Date.now() - t0;
    for (const [path, content] of quickStart.files) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), content);
    }
    t0 = Date.now();
    await run(join(dir, 'node_modules', '.bin', 'tsc'), [], { cwd: dir }).catch(
      (error: { stdout?: string }) => {
        throw new Error(`README quick start: tsc failed:\n${error.stdout ?? String(error)}`);
      },
    );
    timings.buildMs = Date.now() - t0;
    return dir;
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
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

export interface UnitTestRun {
  /** node --test's TAP output (--test-reporter=tap: Node 24's default reporter is spec even without a TTY). */
  stdout: string;
  /** TCP connects the test's processes attempted: none, for a test that needs no broker. */
  connects: { host?: string; port: number }[];
  /** What the recorder saw of a connect made on purpose: proves it records. */
  probe: { host?: string; port: number }[];
}

/**
 * Runs the README's unit test (`node --test dist/….test.js`) with no KAFKA_BROKERS (the app then
 * points at localhost:9092, closed here) and every TCP connect recorded. Rejects if it fails.
 */
export async function runReadmeUnitTest(dir: string, unitTest: string): Promise<UnitTestRun> {
  const recorder = join(dir, 'connect-recorder.cjs');
  const log = join(dir, 'connects.jsonl');
  await writeFile(recorder, CONNECT_RECORDER);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_OPTIONS: `--require ${recorder}`,
    NKB_CONNECT_LOG: log,
  };
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

  const { stdout } = await run(process.execPath, ['--test', '--test-reporter=tap', unitTest], {
    cwd: dir,
    env,
  }).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(`README unit test failed:\n${error.stdout}\n${error.stderr}`);
  });
  return { stdout, connects: await read(), probe };
}

/** One instance of the README app (`PORT=<n> node dist/main.js`), its output collected. */
export class ReadmeAppInstance {
  private readonly child: ChildProcessWithoutNullStreams;
  private output = '';
  /** Resolves the exit code, or the signal that ended the process. */
  readonly exited: Promise<number | string | null>;

  constructor(
    dir: string,
    quickStart: QuickStart,
    readonly port: number,
    env: Record<string, string>,
  ) {
    this.child = spawn(process.execPath, [quickStart.entry], {
      cwd: dir,
      env: { ...process.env, ...env, [quickStart.portVariable]: String(port) },
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
