#!/usr/bin/env node
// Puts @confluentinc/kafka-javascript (the 'confluent' client's package) into node_modules, built
// from source once per machine and reused after that.
//
//   node scripts/confluent-client.mjs          build if not cached, then link into node_modules
//   node scripts/confluent-client.mjs --check  exit 0 when node_modules has a build that loads
//
// Why a script and not a dependency in package.json: the package's install step downloads a
// prebuilt addon from a GitHub release host, which CI machines here cannot reach, and then falls
// back to a source build of librdkafka that npm ci would repeat on every clean clone (minutes).
// The addon is nan-based (not N-API), so a build serves one Node ABI only: the cache key is the
// version, the Node ABI (process.versions.modules), the platform, the architecture and the libc.
//
// The build links librdkafka against the system's zlib and OpenSSL (CKJS_LINKING=dynamic, the
// package's documented switch): the image needs a C/C++ toolchain, make, python3, libssl-dev and
// zlib1g-dev. It compiles against this Node's own headers (npm_config_nodedir, when this Node
// ships them, as the .cache/node runtime does): the system npm would otherwise use its own Node's.
// A build that fails prints the cause and exits 1; nothing half-built is left in the cache.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The client version the adapter is proven on (the library's peer range says the same). */
export const CONFLUENT_VERSION = '1.10.1';
const PACKAGE = '@confluentinc/kafka-javascript';

/** Outside the repo, as the Kafka jars: fresh clones (CI) and worktrees share one build. */
const CACHE_ROOT = join(
  process.env.CONFLUENT_CACHE_DIR || join(homedir(), '.cache', 'nest-kafka-broadcast'),
  'confluent',
);

function libc() {
  const report = process.report?.getReport();
  return report?.header?.glibcVersionRuntime ? 'glibc' : 'musl';
}

/** One build per version, Node ABI, platform, architecture and libc. */
export function cacheKey() {
  const { platform, arch } = process;
  return `${CONFLUENT_VERSION}-abi${process.versions.modules}-${platform}-${arch}-${libc()}`;
}

const say = (line) => console.error(`confluent-client: ${line}`);

/** Node's headers for this Node: the runtime's own include/ when it ships them. */
function nodeDir() {
  if (process.env.npm_config_nodedir) return process.env.npm_config_nodedir;
  const prefix = join(dirname(process.execPath), '..');
  return existsSync(join(prefix, 'include', 'node', 'node.h')) ? prefix : undefined;
}

function run(cmd, args, options) {
  say(`> ${cmd} ${args.join(' ')}`);
  const result = spawnSync(cmd, args, { stdio: 'inherit', ...options });
  if (result.status !== 0) {
    const why = result.error ? result.error.message : `exit ${result.status ?? result.signal}`;
    throw new Error(`${cmd} ${args[0]} failed (${why}); its output is above`);
  }
}

/** Builds into a temporary folder beside the cache, then moves it in whole. */
function build(target) {
  const missing = ['cc', 'c++', 'make', 'python3'].filter(
    (tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0,
  );
  if (missing.length > 0) throw new Error(`the build needs ${missing.join(', ')} on PATH`);
  mkdirSync(CACHE_ROOT, { recursive: true });
  const work = mkdtempSync(join(CACHE_ROOT, '.build-'));
  const started = Date.now();
  try {
    // npm 11 asks that a package's install script be allowed (it warns, later versions refuse).
    const manifest = { private: true, allowScripts: { [PACKAGE]: true } };
    writeFileSync(join(work, 'package.json'), `${JSON.stringify(manifest)}\n`);
    const env = {
      ...process.env,
      CKJS_LINKING: 'dynamic',
      // No attempt at the release host: it is not reachable from CI here.
      npm_config_build_from_source: 'true',
    };
    const headers = nodeDir();
    if (headers) env.npm_config_nodedir = headers;
    say(`building ${PACKAGE}@${CONFLUENT_VERSION} from source for ${cacheKey()} (minutes)`);
    run(
      'npm',
      [
        'install',
        `${PACKAGE}@${CONFLUENT_VERSION}`,
        '--no-audit',
        '--no-fund',
        '--no-save',
        '--foreground-scripts',
      ],
      { cwd: work, env },
    );
    prune(join(work, 'node_modules', ...PACKAGE.split('/')));
    loads(join(work, 'node_modules', ...PACKAGE.split('/')));
    const seconds = Math.round((Date.now() - started) / 1000);
    writeFileSync(join(work, 'complete.json'), `${JSON.stringify({ seconds }, null, 2)}\n`);
    rmSync(target, { recursive: true, force: true });
    renameSync(work, target);
    say(`built in ${seconds} s, cached in ${target}`);
  } catch (error) {
    rmSync(work, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Drops what only the build needed (librdkafka's sources, objects and static libraries: about
 * 280 MB). Left: the addon (build/Release) and librdkafka's shared libraries (build/deps, the
 * addon's rpath).
 */
export function prune(dir) {
  for (const only of ['deps', 'src']) rmSync(join(dir, only), { recursive: true, force: true });
  const release = join(dir, 'build', 'Release');
  for (const entry of readdirSync(release))
    if (!entry.endsWith('.node')) rmSync(join(release, entry), { recursive: true, force: true });
  const libs = join(dir, 'build', 'deps');
  for (const entry of readdirSync(libs))
    if (!/\.so(\.\d+)*$/.test(entry)) rmSync(join(libs, entry), { recursive: true, force: true });
}

/** Loads the addon in a child Node (a failed dlopen must not end this script). */
function loads(dir) {
  const code = `require(${JSON.stringify(dir)}); console.log(require(${JSON.stringify(join(dir, 'package.json'))}).librdkafka)`;
  const result = spawnSync(process.execPath, ['-e', code], { encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(`the built addon does not load: ${result.stderr.trim()}`);
  return true;
}

/** Copies the cached package and its own dependencies into node_modules. */
function link(cached) {
  const to = join(ROOT, 'node_modules', ...PACKAGE.split('/'));
  rmSync(to, { recursive: true, force: true });
  mkdirSync(dirname(to), { recursive: true });
  cpSync(join(cached, 'node_modules', ...PACKAGE.split('/')), to, { recursive: true });
  // Its dependencies (bindings, …) nested under it, so they never shadow the workspace's own.
  const deps = join(to, 'node_modules');
  mkdirSync(deps, { recursive: true });
  for (const entry of readdirSync(join(cached, 'node_modules'))) {
    if (entry.startsWith('.') || entry === '@confluentinc') continue;
    cpSync(join(cached, 'node_modules', entry), join(deps, entry), { recursive: true });
  }
  return to;
}

function main(args) {
  const installed = join(ROOT, 'node_modules', ...PACKAGE.split('/'));
  if (args.includes('--check')) {
    process.exitCode = existsSync(installed) && loads(installed) ? 0 : 1;
    return;
  }
  const cached = join(CACHE_ROOT, cacheKey());
  if (existsSync(join(cached, 'complete.json'))) say(`reusing the build in ${cached}`);
  else build(cached);
  const to = link(cached);
  loads(to);
  say(`${PACKAGE}@${CONFLUENT_VERSION} loads from ${to}`);
}

try {
  main(process.argv.slice(2));
} catch (error) {
  console.error(`\nconfluent-client: ${error.message}\n`);
  process.exitCode = 1;
}
