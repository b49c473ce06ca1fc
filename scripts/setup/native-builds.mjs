// The workspace's one dependency with an install script, better-sqlite3 (a devDependency for the
// SQLite lock rows), compiled once per machine instead of at every `npm ci`: its install script
// asks github.com for a prebuilt binary, which this machine cannot reach, then compiles SQLite
// from source (about 65 s and 60 CPU-seconds on 2 cores, 2026-12-07: the largest part of CI's
// npm ci). `npm ci --ignore-scripts` installs everything else; the binary comes from
// ~/.cache/nest-kafka-broadcast/better-sqlite3/<version>-abi<ABI>-<platform>-<arch>, or from
// `npm rebuild better-sqlite3` (its install script, as npm ci would run it), then kept there.
// Plain Node, no dependencies: it runs right after npm ci.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MACHINE_CACHE_DIR } from './machine-cache.mjs';
import { SetupError } from './prerequisites.mjs';

const PACKAGE = 'better-sqlite3';
/** Where `bindings` (better-sqlite3's loader) looks first. */
const BINARY = join('build', 'Release', 'better_sqlite3.node');

/** Puts better-sqlite3's compiled binary in place: from the machine's cache, or built once. */
export function ensureNativeBuilds(root) {
  const dir = join(root, 'node_modules', PACKAGE);
  // Not installed (npm ci --omit=dev): nothing to build.
  if (!existsSync(join(dir, 'package.json'))) return;
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const key = `${version}-abi${process.versions.modules}-${process.platform}-${process.arch}`;
  const cached = join(MACHINE_CACHE_DIR, PACKAGE, key, 'better_sqlite3.node');
  const target = join(dir, BINARY);
  if (existsSync(cached)) {
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(cached, target);
    console.error(`${PACKAGE} ${version}: the machine's build (${cached})`);
    return;
  }
  console.error(`> npm rebuild ${PACKAGE} (once per machine, Node ABI and version: ${key})`);
  const rebuilt = spawnSync('npm', ['rebuild', PACKAGE], { cwd: root, stdio: 'inherit' });
  if (rebuilt.status !== 0 || !existsSync(target))
    throw new SetupError(
      `${PACKAGE} could not be built (npm rebuild ${PACKAGE}: the cause is above)`,
    );
  mkdirSync(dirname(cached), { recursive: true });
  // Renamed into place: a concurrent setup never copies a half-written binary.
  const partial = `${cached}.${process.pid}`;
  copyFileSync(target, partial);
  renameSync(partial, cached);
}
