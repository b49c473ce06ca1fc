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
// The cache key (scripts/confluent/cache.mjs) is the version, the Node ABI, the platform, the
// architecture and the libc; the build itself is scripts/confluent/build.mjs.
//
// The build links librdkafka against the system's zlib and OpenSSL (CKJS_LINKING=dynamic, the
// package's documented switch): the image needs a C/C++ toolchain, make, python3, libssl-dev and
// zlib1g-dev. It compiles against this Node's own headers (npm_config_nodedir, when this Node
// ships them, as the .cache/node runtime does): the system npm would otherwise use its own Node's.
// A build that fails prints "BUILD FAILED", its cause and its log's path, and exits 1; nothing
// half-built is left in the cache.
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, loads } from './confluent/build.mjs';
import { CONFLUENT_PACKAGE, CONFLUENT_VERSION, cachedBuildDir } from './confluent/cache.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const say = (line) => console.error(`confluent-client: ${line}`);

/** Copies the cached package and its own dependencies into node_modules. */
function link(cached) {
  const to = join(ROOT, 'node_modules', ...CONFLUENT_PACKAGE.split('/'));
  rmSync(to, { recursive: true, force: true });
  mkdirSync(dirname(to), { recursive: true });
  cpSync(join(cached, 'node_modules', ...CONFLUENT_PACKAGE.split('/')), to, { recursive: true });
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
  const installed = join(ROOT, 'node_modules', ...CONFLUENT_PACKAGE.split('/'));
  if (args.includes('--check')) {
    process.exitCode = existsSync(installed) && loads(installed) === true ? 0 : 1;
    return;
  }
  const cached = cachedBuildDir();
  if (existsSync(join(cached, 'complete.json'))) say(`reusing the build in ${cached}`);
  else build(cached, say);
  const to = link(cached);
  const load = loads(to);
  if (load !== true) throw new Error(`the copy in ${to} does not load: ${load}`);
  say(`${CONFLUENT_PACKAGE}@${CONFLUENT_VERSION} loads from ${to}`);
}

try {
  main(process.argv.slice(2));
} catch (error) {
  // Every line prefixed, so that a CI log searched for the script's name shows the whole report.
  console.error(`\n${error.message.replace(/^/gm, 'confluent-client: ')}\n`);
  process.exitCode = 1;
}
