// Where the @confluentinc/kafka-javascript build is cached, and under which key. Imported by
// scripts/confluent-client.mjs (the build and the link), by the package matrix (its confluent cell
// installs this build as a prebuilt binary) and by the bench. No side effect on import.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { MACHINE_CACHE_DIR } from '../setup/machine-cache.mjs';

/** The client version the adapter is proven on (the library's peer range says the same). */
export const CONFLUENT_VERSION = '1.10.1';
export const CONFLUENT_PACKAGE = '@confluentinc/kafka-javascript';

/** The machine's cache folder for this project (scripts/setup/machine-cache.mjs). */
export { MACHINE_CACHE_DIR };

/** Where the confluent build is kept: the machine's cache, or CONFLUENT_CACHE_DIR. */
export function cacheRoot(env = process.env) {
  return join(env.CONFLUENT_CACHE_DIR || MACHINE_CACHE_DIR, 'confluent');
}

/** glibc or musl: a build links against one of them. */
export function libc() {
  const report = process.report?.getReport();
  return report?.header?.glibcVersionRuntime ? 'glibc' : 'musl';
}

/**
 * One build per version, Node ABI, platform, architecture and libc: the addon is nan-based (not
 * N-API), so a build serves one Node ABI only.
 */
export function cacheKey() {
  const { platform, arch } = process;
  return `${CONFLUENT_VERSION}-abi${process.versions.modules}-${platform}-${arch}-${libc()}`;
}

/** The folder of this machine's build (complete or not). */
export function cachedBuildDir(env = process.env) {
  return join(cacheRoot(env), cacheKey());
}

/**
 * The cached package folder (node_modules/@confluentinc/kafka-javascript inside the build), or
 * undefined when this Node has no complete build yet (`node scripts/confluent-client.mjs` makes it).
 */
export function cachedPackage(env = process.env) {
  const dir = cachedBuildDir(env);
  if (!existsSync(join(dir, 'complete.json'))) return undefined;
  return join(dir, 'node_modules', ...CONFLUENT_PACKAGE.split('/'));
}
