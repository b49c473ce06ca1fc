/**
 * The compatibility matrix: the library packed with `npm pack` and installed into throwaway apps,
 * each with its own `npm install` of real packages from the registry (through the machine's npm cache,
 * ~/.cache/nest-kafka-broadcast/npm, which a clean clone finds filled) and its
 * own TypeScript build. In each cell two instances start, one broadcast reaches both, health (where
 * present) is up, and SIGTERM leaves no member in their groups and no lock in the database.
 * The peer ranges in libs/broadcast/package.json say what this file proves.
 *
 * Every cell runs on the Node running the tests (Node 24 in CI, what `engines` promises). With
 * CI_ALSO_NODE (opt-in), .ci/node-runtime.sh installs that older Node and names it in
 * MATRIX_LOWEST_NODE, and the cells in ON_LOWEST_NODE run a second time on it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import mysql from 'mysql2/promise';
import type { Admin } from 'kafkajs';
import { packLibrary } from '../../scripts/pack-lib.mjs';
import { mysqlLockName } from '../../libs/broadcast/src/locks/lock-keys.js';
import { kafkaBrokers, newAdmin, testPrefix } from '../support/broker/kafka.js';
import { deletePrefix, describe1 } from '../support/faults/faults.js';
import { heldLocks, lockKeyOf, pgClient } from '../support/nest/nest.js';
import {
  AppInstance,
  cellNodeVersion,
  createApp,
  removeApp,
  type AppSpec,
  type AppTimings,
  runUnitTest,
  type LockKind,
} from '../support/package/package-apps.js';
import {
  createReadmeApp,
  freePort,
  ReadmeAppInstance,
  runAppScript,
  runAppTest,
  scaffoldVersions,
  startScriptEntry,
  type ReadmeAppTimings,
} from '../support/package/readme-app.js';
import { readQuickStart } from '../support/package/readme-quick-start.js';

const COMMON = { kafkajs: '^2.2.4', 'reflect-metadata': '^0.2.2', rxjs: '^7.8.0' };
const TS = { '@types/node': '^24.0.0' };

/** A Nest 12 ESM app, lock-free, with `pkg` at `range` as its only Kafka client. */
function oneClientCell(name: string, pkg: string, range: string): AppSpec {
  return {
    name,
    style: 'esm',
    lock: 'none',
    terminus: false,
    microservices: false,
    dependencies: {
      [pkg]: range,
      'reflect-metadata': COMMON['reflect-metadata'],
      rxjs: COMMON.rxjs,
      ...TS,
      typescript: '~6.0.3',
      '@nestjs/common': '^12.0.0',
      '@nestjs/core': '^12.0.0',
    },
  };
}

const CELLS: AppSpec[] = [
  {
    name: 'nest12-esm-typeorm1-postgres-terminus',
    style: 'esm',
    lock: 'typeorm-postgres',
    terminus: true,
    microservices: true,
    dependencies: {
      ...COMMON,
      ...TS,
      typescript: '~6.0.3',
      '@nestjs/common': '^12.0.0',
      '@nestjs/core': '^12.0.0',
      '@nestjs/terminus': '^12.0.0',
      '@nestjs/microservices': '^12.0.0',
      '@nestjs/typeorm': '^12.0.0',
      typeorm: '^1.0.0',
      pg: '^8.13.0',
    },
  },
  {
    name: 'nest11-cjs-typeorm03-mariadb-terminus',
    style: 'cjs',
    lock: 'typeorm-mariadb',
    terminus: true,
    microservices: true,
    dependencies: {
      ...COMMON,
      ...TS,
      typescript: '~5.9.0',
      '@nestjs/common': '^11.0.0',
      '@nestjs/core': '^11.0.0',
      '@nestjs/terminus': '^11.0.0',
      '@nestjs/microservices': '^11.0.0',
      '@nestjs/typeorm': '^11.0.0',
      typeorm: '^0.3.0',
      mysql2: '^3.11.0',
    },
  },
  {
    name: 'nest12-lock-free',
    style: 'esm',
    lock: 'none',
    terminus: false,
    microservices: false,
    unitTest: true,
    dependencies: {
      ...COMMON,
      ...TS,
      typescript: '~6.0.3',
      '@nestjs/common': '^12.0.0',
      '@nestjs/core': '^12.0.0',
      '@nestjs/testing': '^12.0.0',
    },
  },
  {
    name: 'nest12-pg-lock-provider',
    style: 'esm',
    lock: 'pg',
    terminus: false,
    microservices: false,
    dependencies: {
      ...COMMON,
      ...TS,
      typescript: '~6.0.3',
      '@types/pg': '^8.11.0',
      '@nestjs/common': '^12.0.0',
      '@nestjs/core': '^12.0.0',
      pg: '^8.13.0',
    },
  },
  // One client only: kafkajs is not installed (and npm must not add it as a peer), so the module
  // picks @platformatic/kafka by itself. 2.x is what `npm install @platformatic/kafka` gives on
  // Node 24; 1.35 is the other line the peer range takes (the 1.x line, still released, for apps
  // that keep it).
  oneClientCell('nest12-platformatic-only', '@platformatic/kafka', '^2.12.1'),
  oneClientCell('nest12-platformatic-1.35', '@platformatic/kafka', '~1.35.0'),
  // @confluentinc/kafka-javascript alone, picked by the module by itself. Its native addon is this
  // machine's build (scripts/confluent-client.mjs), packed into the package the app installs: the
  // registry's tarball holds no binary and its release host is not reachable here
  // (test/support/package/confluent-prebuilt.ts). 1.10.1 exactly: the one version proven (the
  // peer range says the same).
  {
    ...oneClientCell('nest12-confluent-only', '@confluentinc/kafka-javascript', '1.10.1'),
    confluentBuild: true,
  },
  {
    name: 'node-engine-no-nest',
    style: 'node',
    lock: 'none',
    terminus: false,
    microservices: false,
    // --legacy-peer-deps: not even @nestjs/common is installed, so the engine entry must not need it.
    withoutPeers: true,
    dependencies: { kafkajs: '^2.2.4' },
  },
];

/**
 * Cells repeated on MATRIX_LOWEST_NODE (opt-in): the fullest Nest cell (every entry: module, terminus,
 * microservices, TypeORM locks) and the engine entry without Nest.
 */
const ON_LOWEST_NODE = ['nest12-esm-typeorm1-postgres-terminus', 'node-engine-no-nest'];

function lowestNodeCells(): AppSpec[] {
  const node = process.env.MATRIX_LOWEST_NODE;
  if (!node) return [];
  const version = cellNodeVersion({ node } as AppSpec);
  if (version === process.version) return [];
  const major = version.slice(1).split('.')[0];
  return CELLS.filter((c) => ON_LOWEST_NODE.includes(c.name)).map((c) => ({
    ...c,
    name: `${c.name}-node${major}`,
    node,
  }));
}

const MATRIX = [...CELLS, ...lowestNodeCells()].map((spec) => ({
  ...spec,
  nodeVersion: cellNodeVersion(spec),
}));

let packDir: string;
let tarball: string;
let admin: Admin;

beforeAll(async () => {
  // A folder of this run's own: `npm run check:package` empties .cache/pack.
  packDir = await mkdtemp(join(tmpdir(), 'nkb-matrix-pack-'));
  // CI packs the library once, in its static checks (`npm run check:package`), and names the
  // tarball: copied here (a later check:package empties .cache/pack), not built again.
  const packed = process.env.MATRIX_TARBALL;
  if (packed) {
    tarball = join(packDir, basename(packed));
    await copyFile(packed, tarball);
  } else tarball = packLibrary(packDir).path;
  admin = await newAdmin();
}, 300_000);

afterAll(async () => {
  await admin?.disconnect();
  await removeApp(packDir);
});

describe.each(MATRIX)('package matrix: $name on Node $nodeVersion', (spec) => {
  const prefix = testPrefix(`matrix.${spec.name}`);
  let dir: string | undefined;
  const instances: AppInstance[] = [];

  afterAll(async () => {
    for (const i of instances) i.kill();
    await Promise.all(instances.map((i) => i.exited));
    await deletePrefix(admin, prefix);
    await removeApp(dir);
  });

  it('installs from the tarball, builds, and two instances each receive one broadcast, then leave cleanly on SIGTERM', async () => {
    const timings: Partial<AppTimings> = {};
    const started = Date.now();
    dir = await createApp(spec, tarball, timings);
    // A client the app does not depend on is not installed: every client is an optional peer.
    for (const client of ['kafkajs', '@platformatic/kafka', '@confluentinc/kafka-javascript'])
      if (!(client in spec.dependencies))
        expect(existsSync(join(dir, 'node_modules', client)), client).toBe(false);
      else expect(installedVersion(dir, client)).toMatch(rangeLine(spec.dependencies[client]!));
    // The app's own unit test, on nestjs-kafka-broadcast/testing: it needs no broker.
    if (spec.unitTest) expect(await runUnitTest(dir)).toMatch(/# pass 1\n# fail 0/);
    const env = { KAFKA_BROKERS: kafkaBrokers().join(','), TOPIC_PREFIX: prefix };
    const a = new AppInstance(dir, spec, env);
    instances.push(a);
    const readyA = await a.next('ready');
    const b = new AppInstance(dir, spec, env);
    instances.push(b);
    const readyB = await b.next('ready');

    expect(readyA.state).toBe('ready');
    expect(readyB.state).toBe('ready');
    expect([readyA.node, readyB.node]).toEqual([spec.nodeVersion, spec.nodeVersion]);
    expect(readyA.groupId).not.toBe(readyB.groupId);
    expect(readyA.lockMode).toBe(expectedLockMode(spec.lock));
    expect(readyB.lockMode).toBe(expectedLockMode(spec.lock));
    if (spec.lock !== 'none') expect(await locksHeld(spec.lock, prefix)).toHaveLength(2);

    const before = [a.events.length, b.events.length];
    const payload = { cell: spec.name, at: Date.now() };
    a.command(`publish ${JSON.stringify(payload)}`);
    expect((await a.next('received', before[0])).payload).toEqual(payload);
    expect((await b.next('received', before[1])).payload).toEqual(payload);

    if (spec.terminus) {
      for (const instance of [a, b]) {
        const from = instance.events.length;
        instance.command('health');
        const { result } = (await instance.next('health', from)) as {
          result: { status: string; info?: { broadcast?: { status: string } } };
        };
        expect(result.status).toBe('ok');
        expect(result.info?.broadcast?.status).toBe('up');
      }
    }

    const groups = [readyA.groupId, readyB.groupId] as string[];
    // Members of either protocol (KIP-848 groups on @platformatic/kafka): one each, then none.
    expect(await memberCounts(groups)).toEqual([1, 1]);
    const ended = spec.style === 'node' ? 0 : 'SIGTERM';
    expect(await Promise.all([a.terminate(), b.terminate()])).toEqual([ended, ended]);
    expect(await memberCounts(groups)).toEqual([0, 0]);
    if (spec.lock !== 'none') expect(await locksHeld(spec.lock, prefix)).toEqual([]);
    // CI time of the cell, for the README's figures (not asserted).
    console.log(
      `[matrix] ${spec.name} (Node ${spec.nodeVersion}): npm install ${timings.installMs} ms, build ${timings.buildMs} ms, ` +
        `total ${Date.now() - started} ms`,
    );
  }, 600_000);
});

/**
 * The package README's quick start, as a new user follows it (#21, #28): the app `nest new` makes
 * (the CLI from the registry), the README's npm commands with the tarball, its titled blocks
 * merged into the generated app; then the app's own `npm test` (Vitest) without a broker, its own
 * build script, and two instances of its start script that both log the broadcast the README's
 * curl publishes. Everything about the app is read from the README (test/support/package/readme-app.ts,
 * readme-quick-start.ts): a quick start that does not work fails here.
 */
describe(`package matrix: readme-quick-start on Node ${process.version}`, () => {
  const prefix = testPrefix('matrix.readme-quick-start');
  let root: string | undefined;
  const instances: ReadmeAppInstance[] = [];

  afterAll(async () => {
    for (const i of instances) i.kill();
    await Promise.all(instances.map((i) => i.exited));
    await deletePrefix(admin, prefix);
    await removeApp(root);
  });

  it("nest new, then the README alone: its Vitest spec needs no broker; built by the app's scripts, two instances both handle one publish", async () => {
    const timings: Partial<ReadmeAppTimings> = {};
    const started = Date.now();
    const quickStart = await readQuickStart();
    const app = await createReadmeApp(quickStart, tarball, timings);
    root = app.root;
    const { dir } = app;
    const versions = await scaffoldVersions(dir);

    // The scripts before the instances (npm test, npm run build), in the README's order. The test
    // runs with no KAFKA_BROKERS and every TCP connect recorded: none (the recorder does see one
    // made on purpose, so an empty list means none was tried).
    const scriptMs: string[] = [];
    for (const script of quickStart.scripts) {
      const t0 = Date.now();
      if (script === 'test') {
        const test = await runAppTest(root, dir);
        expect(test.probe).toEqual([{ host: '127.0.0.1', port: 9 }]);
        for (const spec of quickStart.specs) expect(test.output).toContain(`✓ ${spec}`);
        expect(test.output).toMatch(/Tests\s+\d+ passed/);
        expect(test.connects).toEqual([]);
      } else await runAppScript(dir, script);
      scriptMs.push(`${script} ${Date.now() - t0} ms`);
    }
    const entry = await startScriptEntry(dir, quickStart.startScript);

    const env = { KAFKA_BROKERS: kafkaBrokers().join(','), BROADCAST_TOPIC_PREFIX: prefix };
    const listening = 'Nest application successfully started';
    const group = /Reading broadcasts through consumer group (\S+)/g;
    const start = async () => {
      const port = await freePort();
      const instance = new ReadmeAppInstance(dir, entry, quickStart.portVariable, port, env);
      instances.push(instance);
      await instance.waitFor(listening);
      return instance;
    };
    const a = await start();
    const b = await start();
    // The group each reads through once ready (the last one it logged: a lock-free instance that
    // met another in a group moves on).
    const groups = [a, b].map((i) => [...i.log.matchAll(group)].at(-1)?.[1]);
    expect(groups.map((g) => g?.startsWith(prefix))).toEqual([true, true]);
    expect(groups[1]).not.toBe(groups[0]);

    const before = [a.log.length, b.log.length];
    const { method, path } = quickStart.request;
    const response = await fetch(`http://127.0.0.1:${a.port}${path}`, { method });
    expect(response.status).toBe(201);
    await a.waitFor(quickStart.expectedLog, before[0]);
    await b.waitFor(quickStart.expectedLog, before[1]);

    // @opentelemetry/api is an optional peer the README does not install: no word about it.
    for (const i of [a, b]) expect(i.log).not.toMatch(/telemetry is off/);

    // Members of either protocol (KIP-848 groups on @platformatic/kafka): one each, then none.
    expect(await memberCounts(groups as string[])).toEqual([1, 1]);
    expect(await Promise.all([a.terminate(), b.terminate()])).toEqual(['SIGTERM', 'SIGTERM']);
    expect(await memberCounts(groups as string[])).toEqual([0, 0]);
    console.log(
      `[matrix] readme-quick-start (Node ${process.version}, ${JSON.stringify(versions)}): ` +
        `nest new ${timings.scaffoldMs} ms, npm ${timings.installMs} ms, ${scriptMs.join(', ')}, ` +
        `total ${Date.now() - started} ms`,
    );
  }, 600_000);
});

function expectedLockMode(lock: LockKind): string {
  if (lock === 'none') return 'none';
  return lock === 'typeorm-mariadb' ? 'mysql' : 'postgres';
}

/** The ids locked in the database for this cell's namespace (default group base). */
async function locksHeld(lock: LockKind, prefix: string): Promise<number[]> {
  if (lock === 'typeorm-mariadb') {
    const connection = await mysql.createConnection({
      host: '127.0.0.1',
      port: 3306,
      user: 'root',
      database: 'test',
    });
    try {
      const held: number[] = [];
      for (let id = 0; id < 10; id++) {
        const name = mysqlLockName(`${prefix}broadcastConsumer`, id);
        const [rows] = await connection.query('SELECT IS_USED_LOCK(?) AS holder', [name]);
        if ((rows as { holder: unknown }[])[0]?.holder !== null) held.push(id);
      }
      return held;
    } finally {
      await connection.end();
    }
  }
  const client = await pgClient();
  try {
    return (await heldLocks(client, lockKeyOf(prefix))).map((l) => l.id);
  } finally {
    await client.end();
  }
}

/** How many members each group has, whichever protocol it speaks. */
async function memberCounts(groups: string[]): Promise<number[]> {
  return Promise.all(groups.map(async (g) => (await describe1(admin, g)).memberIds.length));
}

/** The version of a package installed in an app. */
function installedVersion(dir: string, name: string): string {
  const file = join(dir, 'node_modules', name, 'package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/**
 * What a range pins: a ^ range its major (^2.12.1 -> /^2\./), a ~ range its major.minor
 * (~1.35.0 -> /^1\.35\./), an exact version itself (1.10.1 -> /^1\.10\.1$/).
 */
function rangeLine(range: string): RegExp {
  const [major, minor] = range.replace(/^[\^~]/, '').split('.');
  if (!/^[\^~]/.test(range)) return new RegExp(`^${range.replaceAll('.', '\\.')}$`);
  return new RegExp(range.startsWith('~') ? `^${major}\\.${minor}\\.` : `^${major}\\.`);
}
