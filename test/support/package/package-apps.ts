/**
 * Throwaway consumer apps for test/package/matrix.spec.ts: each is a folder in the OS temp dir with
 * its own package.json (real packages from the registry plus the packed library tarball), its own
 * `npm install` and its own TypeScript build, exactly as a user's app would be made.
 *
 * Every app speaks the same line protocol. It prints one JSON object per line on stdout
 * ({event:'ready', ...status, node}, {event:'received', payload}, {event:'health', status}) and reads
 * commands on stdin: `publish <json>` and `health`. SIGTERM stops it through its shutdown hooks.
 */
import {
  execFile,
  execFileSync,
  spawn,
  type ChildProcessWithoutNullStreams,
} from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { MACHINE_CACHE_DIR } from '../../../scripts/confluent/cache.mjs';
import { packConfluentBuild } from './confluent-prebuilt.js';

const run = promisify(execFile);
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
/**
 * npm's cache for the matrix installs: the machine's, not the checkout's, so that a clean clone
 * (what CI runs) finds what an earlier run downloaded, as the confluent build's cache
 * (~/.cache/nest-kafka-broadcast/confluent) does. MATRIX_NPM_CACHE moves it. A clone-local cache
 * was empty on every CI run: the matrix took 303-399 s on 2026-12-06 and 933-1,064 s on
 * 2026-12-07, when the registry answered slowly (67 s for one app's install).
 */
export const NPM_CACHE = process.env.MATRIX_NPM_CACHE ?? join(MACHINE_CACHE_DIR, 'npm');

export type LockKind = 'typeorm-postgres' | 'typeorm-mariadb' | 'pg' | 'none';

export interface AppSpec {
  /** Folder name and the topic prefix's middle part. */
  name: string;
  /** Registry dependencies besides the library tarball. */
  dependencies: Record<string, string>;
  /** `esm`: "type": "module" and module nodenext; `cjs`: module commonjs. `node`: a plain .mjs script. */
  style: 'esm' | 'cjs' | 'node';
  lock: LockKind;
  terminus: boolean;
  microservices: boolean;
  /** npm install --legacy-peer-deps: the library's peers are NOT installed unless listed. */
  withoutPeers?: boolean;
  /** Adds the app's own unit test (src/app.spec.ts, node:test) on nestjs-kafka-broadcast/testing. */
  unitTest?: boolean;
  /**
   * @confluentinc/kafka-javascript (listed in `dependencies`) installed from a tarball of this
   * machine's build (confluent-prebuilt.ts), not from the registry.
   */
  confluentBuild?: boolean;
  /**
   * The Node binary the cell installs, builds and runs with (first on PATH for npm and tsc);
   * by default the Node running the tests.
   */
  node?: string;
}

/** How long each step of createApp() took, in ms. */
export interface AppTimings {
  installMs: number;
  buildMs: number;
}

/** Makes the app folder, installs it from the registry (through the shared cache) and builds it. */
export async function createApp(
  spec: AppSpec,
  tarball: string,
  timings: Partial<AppTimings> = {},
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `nkb-matrix-${spec.name}-`));
  try {
    await installAndBuild(dir, spec, tarball, timings);
    return dir;
  } catch (error) {
    await removeApp(dir);
    throw error;
  }
}

async function installAndBuild(
  dir: string,
  spec: AppSpec,
  tarball: string,
  timings: Partial<AppTimings>,
): Promise<void> {
  await mkdir(join(dir, 'src'), { recursive: true });
  const dependencies: Record<string, string> = {
    'nestjs-kafka-broadcast': `file:${tarball}`,
    ...spec.dependencies,
  };
  if (spec.confluentBuild)
    dependencies['@confluentinc/kafka-javascript'] = `file:${await packConfluentBuild(dir)}`;
  const pkg = {
    name: `matrix-${spec.name}`,
    private: true,
    ...(spec.style === 'cjs' ? {} : { type: 'module' }),
    dependencies,
  };
  await writeFile(join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
  const env = cellEnv(spec);
  const npmArgs = ['install', '--no-audit', '--no-fund', '--prefer-offline', '--cache', NPM_CACHE];
  if (spec.withoutPeers) npmArgs.push('--legacy-peer-deps');
  let t0 = Date.now();
  await run('npm', npmArgs, { cwd: dir, env, maxBuffer: 16 << 20 });
  timings.installMs = Date.now() - t0;
  t0 = Date.now();
  if (spec.style === 'node') {
    await writeFile(join(dir, 'main.mjs'), nodeScript());
    timings.buildMs = 0;
    return;
  }
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig(spec.style), null, 2));
  await writeFile(join(dir, 'src', 'main.ts'), nestApp(spec));
  if (spec.unitTest) await writeFile(join(dir, 'src', 'app.spec.ts'), unitTestSource());
  await run(join(dir, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], { cwd: dir, env });
  timings.buildMs = Date.now() - t0;
}

/**
 * The environment of a cell's npm, tsc and instances: its Node first on PATH (npm and tsc start
 * through `#!/usr/bin/env node`). The headers CI hands npm for Node 24 (npm_config_nodedir) do
 * not belong to another Node, so a cell on its own Node goes without them.
 */
function cellEnv(spec: AppSpec): NodeJS.ProcessEnv {
  if (!spec.node) return process.env;
  const { npm_config_nodedir: _headers, ...env } = process.env;
  return { ...env, PATH: `${dirname(spec.node)}${delimiter}${env.PATH ?? ''}` };
}

/** The version (`v24.21.0`) of the Node a cell runs on. */
export function cellNodeVersion(spec: AppSpec): string {
  if (!spec.node) return process.version;
  return execFileSync(spec.node, ['--version'], { encoding: 'utf8' }).trim();
}

export async function removeApp(dir: string | undefined): Promise<void> {
  if (dir) await rm(dir, { recursive: true, force: true });
}

/** tsconfig as `nest new` makes it: decorators with metadata, strict null checks. */
function tsconfig(style: 'esm' | 'cjs') {
  const module =
    style === 'esm' ? { module: 'nodenext', moduleResolution: 'nodenext' } : { module: 'commonjs' };
  return {
    compilerOptions: {
      ...module,
      target: 'ES2023',
      declaration: false,
      emitDecoratorMetadata: true,
      experimentalDecorators: true,
      esModuleInterop: true,
      strictNullChecks: true,
      // The library's own .d.ts are checked too: a broken or missing type import fails the build.
      skipLibCheck: false,
      types: ['node'],
      outDir: './dist',
      rootDir: './src',
    },
    include: ['src'],
  };
}

function lockOption(lock: LockKind): string {
  switch (lock) {
    case 'none':
      return 'false';
    case 'pg':
      return '{ provider: pgAdvisoryLocks(new pg.Pool({ host: "127.0.0.1", user: "postgres", database: "test", max: 4 })) }';
    default:
      return '{}';
  }
}

function typeOrmImport(lock: LockKind): string {
  if (lock === 'typeorm-postgres') {
    return 'TypeOrmModule.forRoot({ type: "postgres", host: "127.0.0.1", port: 5432, username: "postgres", database: "test" }),';
  }
  if (lock === 'typeorm-mariadb') {
    return 'TypeOrmModule.forRoot({ type: "mariadb", host: "127.0.0.1", port: 3306, username: "root", database: "test" }),';
  }
  return '';
}

/** One Nest app source for every Nest cell; features switched on by the spec. */
function nestApp(spec: AppSpec): string {
  const typeorm = spec.lock.startsWith('typeorm');
  const lines = [
    `import 'reflect-metadata';`,
    `import { Injectable, Module } from '@nestjs/common';`,
    `import { NestFactory } from '@nestjs/core';`,
    `import { createInterface } from 'node:readline';`,
    `import { BroadcastModule, BroadcastPublisher, BroadcastReader, OnBroadcast, type BroadcastMessage } from 'nestjs-kafka-broadcast';`,
    spec.terminus
      ? `import { HealthCheckService, TerminusModule } from '@nestjs/terminus';\nimport { BroadcastHealthIndicator } from 'nestjs-kafka-broadcast/terminus';`
      : '',
    spec.microservices
      ? `import { lastValueFrom } from 'rxjs';\nimport { BroadcastClient } from 'nestjs-kafka-broadcast/microservices';`
      : '',
    typeorm ? `import { TypeOrmModule } from '@nestjs/typeorm';` : '',
    spec.lock === 'pg'
      ? `import pg from 'pg';\nimport { pgAdvisoryLocks } from 'nestjs-kafka-broadcast/locks';`
      : '',
    `const emit = (event: string, data: object) => console.log(JSON.stringify({ event, ...data }));`,
    `@Injectable()`,
    `class Receiver {`,
    `  @OnBroadcast('matrix.ping')`,
    `  received(payload: unknown, message: BroadcastMessage) { emit('received', { payload, topic: message.topic }); }`,
    `}`,
    `@Module({`,
    `  imports: [`,
    `    ${typeOrmImport(spec.lock)}`,
    spec.terminus ? '    TerminusModule,' : '',
    `    BroadcastModule.forRoot({`,
    `      kafka: { brokers: process.env.KAFKA_BROKERS!.split(','), clientId: 'matrix-${spec.name}' },`,
    `      topicPrefix: process.env.TOPIC_PREFIX!,`,
    `      lock: ${lockOption(spec.lock)},`,
    `      heartbeat: { intervalMs: 1000 },`,
    `      consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500 },`,
    `    }),`,
    `  ],`,
    `  providers: [Receiver${spec.terminus ? ', BroadcastHealthIndicator' : ''}${spec.microservices ? ', BroadcastClient' : ''}],`,
    `})`,
    `class AppModule {}`,
    `async function main() {`,
    `  const app = await NestFactory.createApplicationContext(AppModule, { logger: ['error', 'warn'] });`,
    `  app.enableShutdownHooks();`,
    `  emit('ready', { ...app.get(BroadcastReader).status(), node: process.version });`,
    `  for await (const line of createInterface({ input: process.stdin })) {`,
    `    const [command, ...rest] = line.split(' ');`,
    `    if (command === 'publish') {`,
    spec.microservices
      ? `      await lastValueFrom(app.get(BroadcastClient).emit('matrix.ping', JSON.parse(rest.join(' '))), { defaultValue: undefined });`
      : `      await app.get(BroadcastPublisher).publish('matrix.ping', JSON.parse(rest.join(' ')));`,
    `      emit('published', {});`,
    `    } else if (command === 'health') {`,
    spec.terminus
      ? `      const result = await app.get(HealthCheckService).check([() => app.get(BroadcastHealthIndicator).isHealthy('broadcast')]).catch((e: { response?: unknown }) => e.response);\n      emit('health', { result });`
      : `      emit('health', { result: null });`,
    `    }`,
    `  }`,
    `}`,
    `main().catch((error) => { console.error(error); process.exit(1); });`,
  ];
  return lines.filter((l) => l !== '').join('\n') + '\n';
}

/**
 * An app's own unit test as a user writes it: its module's BroadcastModule swapped for
 * BroadcastTestingModule, a publish awaited until the handler ran. Needs no broker.
 */
function unitTestSource(): string {
  return `import 'reflect-metadata';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { BroadcastModule, OnBroadcast } from 'nestjs-kafka-broadcast';
import { BroadcastTestingHelper, BroadcastTestingModule } from 'nestjs-kafka-broadcast/testing';
@Injectable()
class Receiver {
  readonly received: unknown[] = [];
  @OnBroadcast('matrix.ping')
  onPing(payload: unknown) { this.received.push(payload); }
}
const broadcast = BroadcastModule.forRoot({ kafka: { brokers: ['kafka.invalid:9092'] } });
@Module({ imports: [broadcast], providers: [Receiver] })
class AppModule {}
test('a broadcast reaches the handler, without a broker', async () => {
  assert.equal(process.env.KAFKA_BROKERS, undefined);
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] })
    .overrideModule(broadcast)
    .useModule(BroadcastTestingModule.forRoot())
    .compile();
  const app = await moduleRef.init();
  await app.get(BroadcastTestingHelper).publish('matrix.ping', { n: 1 });
  assert.deepEqual(app.get(Receiver).received, [{ n: 1 }]);
  await app.close();
});
`;
}

/** Runs the app's unit test (see unitTestSource) with KAFKA_BROKERS unset; rejects if it fails. */
export async function runUnitTest(dir: string): Promise<string> {
  const env = { ...process.env };
  delete env.KAFKA_BROKERS;
  const { stdout } = await run(
    process.execPath,
    ['--test', '--test-reporter=tap', join('dist', 'app.spec.js')],
    {
      cwd: dir,
      env,
    },
  );
  return stdout;
}

/** The engine entry from a plain Node script: no Nest, no TypeScript. */
function nodeScript(): string {
  return `import { createInterface } from 'node:readline';
import { BroadcastEngine } from 'nestjs-kafka-broadcast/engine';
const emit = (event, data) => console.log(JSON.stringify({ event, ...data }));
const quiet = { log: () => {}, warn: (m) => console.error(m), error: (m) => console.error(m) };
const engine = new BroadcastEngine(
  {
    kafka: { brokers: process.env.KAFKA_BROKERS.split(','), clientId: 'matrix-node' },
    topicPrefix: process.env.TOPIC_PREFIX,
    lock: false,
    heartbeat: { intervalMs: 1000 },
    consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500 },
  },
  { logger: quiet },
);
engine.on('matrix.ping', (payload, message) => emit('received', { payload, topic: message.topic }));
process.once('SIGTERM', () => engine.stop().then(() => process.exit(0)));
await engine.start();
emit('ready', { ...engine.reader.status(), node: process.version });
for await (const line of createInterface({ input: process.stdin })) {
  const [command, ...rest] = line.split(' ');
  if (command === 'publish') {
    await engine.publisher.publish('matrix.ping', JSON.parse(rest.join(' ')));
    emit('published', {});
  } else if (command === 'health') emit('health', { result: null });
}
`;
}

/** One running instance of an app, with its stdout events collected. */
export class AppInstance {
  readonly events: Record<string, unknown>[] = [];
  private readonly child: ChildProcessWithoutNullStreams;
  private stderr = '';
  /** Resolves the exit code, or the signal that ended the process. */
  readonly exited: Promise<number | string | null>;

  constructor(dir: string, spec: AppSpec, env: Record<string, string>) {
    const entry = spec.style === 'node' ? 'main.mjs' : join('dist', 'main.js');
    this.child = spawn(spec.node ?? process.execPath, [entry], {
      cwd: dir,
      env: { ...cellEnv(spec), ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      try {
        this.events.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // Not one of ours (a library's console output); ignored.
      }
    });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => resolve(code ?? signal)),
    );
  }

  get log(): string {
    return this.stderr;
  }

  command(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  /** The first event named `name` (after `from` events), or a rejection naming what was seen. */
  async next(name: string, from = 0, timeoutMs = 90_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.slice(from).find((e) => e.event === name);
      if (found) return found;
      if (this.child.exitCode !== null || Date.now() > deadline) {
        throw new Error(
          `no '${name}' event (exit ${this.child.exitCode}); events ${JSON.stringify(this.events)}; stderr:\n${this.stderr}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /**
   * SIGTERM, then how the process ended. Nest's shutdown hooks close the app and then re-raise the
   * signal, so a Nest app ends by 'SIGTERM'; the plain engine script exits 0.
   */
  async terminate(): Promise<number | string | null> {
    if (this.child.exitCode === null) this.child.kill('SIGTERM');
    return this.exited;
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}
