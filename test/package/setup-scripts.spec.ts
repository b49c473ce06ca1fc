/**
 * The README's two commands set everything up (#28): `npm run demo` and `npm test` first run
 * scripts/setup.mjs, which says clearly what is missing (Node 24, Java for a broker) and runs
 * `npm ci` when node_modules is missing or does not match the lockfile. Here: its checks as
 * functions, and the wrapper itself, with real npm, in a scratch project whose node_modules is
 * missing (a local tarball as its only dependency: nothing from the registry). The databases step
 * runs against the real servers, which answer (starting them needs root and is done by .ci/run the
 * same way).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { staleReason } from '../../scripts/setup/node-modules.mjs';
import {
  SetupError,
  checkBroker,
  checkNode,
  parseJavaMajor,
} from '../../scripts/setup/prerequisites.mjs';
import { cannotStart } from '../../scripts/setup/services.mjs';
import { REPO_ROOT } from '../support/package/package-apps.js';

describe('setup checks', () => {
  it('asks for Node 24, naming the Node found', () => {
    expect(() => checkNode('v20.20.2', '/usr/bin/node', {})).toThrow(SetupError);
    expect(() => checkNode('v20.20.2', '/usr/bin/node', {})).toThrow(
      /Node 24 or newer is needed .*this is Node v20\.20\.2 \(\/usr\/bin\/node\)/,
    );
    expect(() => checkNode('v24.21.0', '/x/node', {})).not.toThrow();
    expect(() => checkNode('v20.20.2', '/usr/bin/node', { SETUP_ANY_NODE: '1' })).not.toThrow();
  });

  it('reads Java versions of both schemes', () => {
    expect(parseJavaMajor('openjdk version "17.0.15" 2025-04-15')).toBe(17);
    expect(parseJavaMajor('java version "1.8.0_292"')).toBe(8);
    expect(parseJavaMajor('')).toBe(0);
  });

  it('without KAFKA_BROKERS and without Java, says what a broker needs', async () => {
    const root = mkdtempSync(join(tmpdir(), 'nkb-setup-broker-'));
    try {
      await expect(checkBroker(root, { KAFKA_BROKERS: 'h:9092' })).resolves.toMatch(/h:9092/);
      await expect(checkBroker(root, { JAVA_HOME: join(root, 'no-jdk') })).rejects.toThrow(
        /needs Java 17 or newer \(no .*no-jdk\/bin\/java found\).*KAFKA_BROKERS/,
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('the databases step', () => {
  it('says why a stopped server cannot be started here', () => {
    const tools = { pg_ctlcluster: '/usr/bin/pg_ctlcluster', '/etc/postgresql/<version>': '15' };
    expect(cannotStart('PostgreSQL', { root: true, tools })).toBeUndefined();
    expect(cannotStart('PostgreSQL', { root: false, tools })).toBe(
      'PostgreSQL does not answer, and starting it needs root (this user is not)',
    );
    expect(
      cannotStart('MariaDB', { root: true, tools: { 'start-stop-daemon': undefined, x: 'y' } }),
    ).toBe('MariaDB does not answer, and start-stop-daemon (to start it) is not installed');
  });

  it('finds both servers answering (what .ci/run and npm test run first)', () => {
    const run = spawnSync(process.execPath, ['scripts/setup.mjs', 'services'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
    expect(run.stderr).toMatch(/setup: PostgreSQL: (running|started)/);
    expect(run.stderr).toMatch(/setup: MariaDB: (running|started)/);
    expect(run.status).toBe(0);
  });
});

describe('the setup wrapper in a scratch project', () => {
  let dir: string;
  const npm = (args: string[]) =>
    spawnSync('npm', args, { cwd: dir, encoding: 'utf8', env: { ...process.env } });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'nkb-setup-scratch-'));
    // The wrapper and what it imports, as a fresh clone has them.
    cpSync(join(REPO_ROOT, 'scripts', 'setup.mjs'), join(dir, 'scripts', 'setup.mjs'));
    cpSync(join(REPO_ROOT, 'scripts', 'setup'), join(dir, 'scripts', 'setup'), { recursive: true });
    cpSync(join(REPO_ROOT, 'scripts', 'kafka'), join(dir, 'scripts', 'kafka'), { recursive: true });
    // One dependency, a local tarball.
    const dep = join(dir, 'dep');
    mkdirSync(dep);
    writeFileSync(join(dep, 'package.json'), '{ "name": "dep", "version": "1.0.0" }\n');
    writeFileSync(join(dep, 'index.js'), 'module.exports = "dep 1.0.0";\n');
    const packed = execFileSync('npm', ['pack', '--silent'], { cwd: dep, encoding: 'utf8' });
    const pkg = {
      name: 'scratch',
      private: true,
      type: 'module',
      dependencies: { dep: `file:dep/${packed.trim()}` },
      scripts: {
        demo: 'node scripts/setup.mjs demo && node -e "console.log(require(\'dep\'))"',
        exits: 'node scripts/setup.mjs install && node -e "process.exit(Number(process.argv[1]))"',
      },
    };
    writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline'], { cwd: dir });
    writeFileSync(
      join(dir, 'old-node.mjs'),
      "Object.defineProperty(process, 'version', { value: 'v20.20.2' });\n",
    );
    rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('installs when node_modules is missing, then runs the command', () => {
    expect(staleReason(dir)).toBe('node_modules is missing');
    const first = npm(['run', 'demo']);
    expect(first.stderr).toContain('Installing dependencies: node_modules is missing.');
    expect(first.stderr).toContain('> npm ci --no-audit --no-fund');
    expect(first.stdout).toContain('dep 1.0.0');
    expect(first.status).toBe(0);
    expect(staleReason(dir)).toBeUndefined();

    // Installed and matching: no install the second time.
    const second = npm(['run', 'demo']);
    expect(second.stderr).not.toContain('Installing dependencies');
    expect(second.status).toBe(0);
  });

  it('installs again when a package does not match the lockfile', () => {
    writeFileSync(
      join(dir, 'node_modules', 'dep', 'package.json'),
      '{ "name": "dep", "version": "0.9.0" }\n',
    );
    expect(staleReason(dir)).toBe('node_modules/dep is 0.9.0, the lockfile says 1.0.0');
    const run = npm(['run', 'demo']);
    expect(run.stderr).toContain('Installing dependencies: node_modules/dep is 0.9.0');
    expect(run.status).toBe(0);
  });

  it("passes the command's arguments on and ends with its exit code", () => {
    expect(npm(['run', 'exits', '--', '3']).status).toBe(3);
    expect(npm(['run', 'exits', '--', '0']).status).toBe(0);
  });

  it('a Node older than 24 stops it with one line, no stack', () => {
    const run = spawnSync(process.execPath, ['scripts/setup.mjs', 'demo'], {
      cwd: dir,
      encoding: 'utf8',
      // The check reads process.version; an older Node is simulated by a preload that sets it.
      env: { ...process.env, NODE_OPTIONS: `--import ${join(dir, 'old-node.mjs')}` },
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^\nnpm run demo: Node 24 or newer is needed/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

describe("better-sqlite3's binary (npm ci runs no install script)", () => {
  // The machine's cache is under HOME (~/.cache/nest-kafka-broadcast): a scratch HOME here. The
  // build itself (npm rebuild better-sqlite3, then kept) is what CI's own setup runs, and every
  // SQLite row of the suite loads its result.
  const home = mkdtempSync(join(tmpdir(), 'nkb-native-home-'));
  const root = mkdtempSync(join(tmpdir(), 'nkb-native-root-'));
  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  });

  it("comes from the machine's cache, keyed by version and Node ABI, when it is there", () => {
    const pkg = join(root, 'node_modules', 'better-sqlite3');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, 'package.json'), '{ "name": "better-sqlite3", "version": "9.9.9" }\n');
    const key = `9.9.9-abi${process.versions.modules}-${process.platform}-${process.arch}`;
    const cached = join(home, '.cache', 'nest-kafka-broadcast', 'better-sqlite3', key);
    mkdirSync(cached, { recursive: true });
    writeFileSync(join(cached, 'better_sqlite3.node'), 'the cached binary');
    const run = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { ensureNativeBuilds } from ${JSON.stringify(join(REPO_ROOT, 'scripts/setup/native-builds.mjs'))};
         ensureNativeBuilds(${JSON.stringify(root)});`,
      ],
      { env: { ...process.env, HOME: home }, encoding: 'utf8' },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain("better-sqlite3 9.9.9: the machine's build");
    expect(readFileSync(join(pkg, 'build', 'Release', 'better_sqlite3.node'), 'utf8')).toBe(
      'the cached binary',
    );
  });
});
