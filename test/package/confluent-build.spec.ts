/**
 * scripts/confluent-client.mjs, which .ci/run and `npm test` call to put @confluentinc/kafka-javascript
 * into node_modules: a build is reused under its key (version, Node ABI, platform, arch, libc),
 * and a build that fails says so in its first lines, with the compiler's error and the log's path.
 * The script runs from a scratch copy (it links into the node_modules beside its own folder), with
 * a cache of the test's own (CONFLUENT_CACHE_DIR) and, for the failures, a stub npm first on PATH:
 * no real build here (that takes minutes; CI does it once per machine).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { causeLines, missingPrerequisites } from '../../scripts/confluent/build.mjs';
import { cacheKey } from '../../scripts/confluent/cache.mjs';
import { REPO_ROOT } from '../support/package/package-apps.js';

let dir: string;
let cache: string;
const script = () => join(dir, 'scripts', 'confluent-client.mjs');
const installed = () => join(dir, 'node_modules', '@confluentinc', 'kafka-javascript');

function run(env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [script()], {
    encoding: 'utf8',
    env: { ...process.env, CONFLUENT_CACHE_DIR: cache, ...env },
  });
}

/** A complete build in the cache whose package's entry is `entry` (no addon: nothing is loaded). */
function fakeBuild(entry: string): void {
  const built = join(cache, 'confluent', cacheKey());
  const pkg = join(built, 'node_modules', '@confluentinc', 'kafka-javascript');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, 'package.json'), '{ "name": "@confluentinc/kafka-javascript" }\n');
  writeFileSync(join(pkg, 'index.js'), entry);
  mkdirSync(join(built, 'node_modules', 'bindings'));
  writeFileSync(join(built, 'node_modules', 'bindings', 'index.js'), 'module.exports = 1;\n');
  writeFileSync(join(built, 'complete.json'), '{ "seconds": 1 }\n');
}

/** A folder with an `npm` that prints `output` and exits 1, as a failed compile does. */
function failingNpm(output: string): string {
  const bin = join(dir, 'stub-bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'npm'), `#!/bin/sh\ncat <<'EOF'\n${output}\nEOF\nexit 1\n`);
  chmodSync(join(bin, 'npm'), 0o755);
  return bin;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'nkb-confluent-build-'));
  cache = join(dir, 'cache');
  cpSync(join(REPO_ROOT, 'scripts', 'confluent-client.mjs'), script());
  cpSync(join(REPO_ROOT, 'scripts', 'confluent'), join(dir, 'scripts', 'confluent'), {
    recursive: true,
  });
  // The machine's cache folder, which scripts/confluent/cache.mjs imports.
  cpSync(
    join(REPO_ROOT, 'scripts', 'setup', 'machine-cache.mjs'),
    join(dir, 'scripts', 'setup', 'machine-cache.mjs'),
  );
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the confluent client build (scripts/confluent-client.mjs)', () => {
  it('keys a build by version, Node ABI, platform, architecture and libc', () => {
    expect(cacheKey()).toBe(
      `1.10.1-abi${process.versions.modules}-${process.platform}-${process.arch}-glibc`,
    );
  });

  it('reuses a cached build: copied into node_modules with its dependencies, no build', () => {
    fakeBuild('module.exports = { RdKafka: {} };\n');
    // An npm that fails: were a build attempted, the run would fail.
    const result = run({
      PATH: `${failingNpm('not to be called')}${delimiter}${process.env.PATH}`,
    });
    expect(result.stderr).toContain(`reusing the build in ${join(cache, 'confluent', cacheKey())}`);
    expect(result.status, result.stderr).toBe(0);
    expect(readdirSync(join(installed(), 'node_modules'))).toEqual(['bindings']);
  });

  it('a cached build that does not load fails the run, saying why', () => {
    fakeBuild("throw new Error('librdkafka.so.1: cannot open shared object file');\n");
    const result = run();
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/confluent-client: the copy in \S+ does not load: .*librdkafka/);
  });

  it('a failed build says BUILD FAILED with the compiler error and the log, and caches nothing', () => {
    const bin = failingNpm(
      [
        'gyp info spawn make',
        "../src/common.cc:12:10: warning: 'Call' is deprecated [-Wdeprecated-declarations]",
        '../src/config.cc:14:10: fatal error: openssl/ssl.h: No such file or directory',
        'compilation terminated.',
        'gyp ERR! build error',
      ].join('\n'),
    );
    const result = run({ PATH: `${bin}${delimiter}${process.env.PATH}` });
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines.slice(-12, -9)).toEqual([
      `confluent-client: BUILD FAILED: @confluentinc/kafka-javascript@1.10.1 for ${cacheKey()} (npm install: exit 1)`,
      'confluent-client: cause:',
      'confluent-client:   ../src/config.cc:14:10: fatal error: openssl/ssl.h: No such file or directory',
    ]);
    const log = join(cache, 'confluent', `${cacheKey()}.build.log`);
    expect(result.stderr).toContain(`confluent-client: full log: ${log}`);
    expect(readdirSync(join(cache, 'confluent'))).toEqual([`${cacheKey()}.build.log`]);
    expect(existsSync(installed())).toBe(false);
  });

  it('names missing tools before building, and error lines, not warnings, as the cause', () => {
    expect(missingPrerequisites()).toBeUndefined();
    expect(missingPrerequisites({ PATH: join(dir, 'nothing') })).toBe(
      'cc, c++, make, python3 not found on PATH',
    );
    expect(
      causeLines('a.cc:1: warning: x [-Wreorder]\nld: undefined reference to `SSL_new`\nok\n'),
    ).toEqual(['ld: undefined reference to `SSL_new`']);
  });
});
