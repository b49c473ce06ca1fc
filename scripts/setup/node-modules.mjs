// Whether the workspace's node_modules matches package-lock.json, and `npm ci` when it does not
// (missing in a fresh clone, or stale after a pull changed the lock). Plain Node, no dependencies:
// it runs before node_modules exists.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureNativeBuilds } from './native-builds.mjs';
import { SetupError } from './prerequisites.mjs';

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/**
 * Compares node_modules with the lockfile's top-level packages: each must be there at the locked
 * version (a workspace link must exist). An optional package may be absent: npm skips those of
 * other platforms. Returns `undefined` when everything is in place, else why not.
 */
export function staleReason(root) {
  const lockFile = join(root, 'package-lock.json');
  if (!existsSync(lockFile)) throw new SetupError(`no package-lock.json in ${root}`);
  if (!existsSync(join(root, 'node_modules'))) return 'node_modules is missing';
  const { packages = {} } = readJson(lockFile);
  for (const [path, entry] of Object.entries(packages)) {
    // Top-level only ("node_modules/a", "node_modules/@s/a"): nested copies follow their parent.
    if (!/^node_modules\/(@[^/]+\/)?[^/@][^/]*$/.test(path)) continue;
    const dir = join(root, path);
    if (entry.link) {
      if (!existsSync(dir)) return `${path} (a workspace link) is missing`;
      continue;
    }
    const manifest = join(dir, 'package.json');
    if (!existsSync(manifest)) {
      if (entry.optional || entry.devOptional) continue;
      return `${path} is missing`;
    }
    const { version } = readJson(manifest);
    if (entry.version && version !== entry.version)
      return `${path} is ${version}, the lockfile says ${entry.version}`;
  }
  return undefined;
}

function npm(root, args) {
  console.error(`> npm ${args.join(' ')}`);
  return spawnSync('npm', args, { cwd: root, stdio: 'inherit' }).status === 0;
}

/**
 * Runs `npm ci` when node_modules does not match the lockfile (`npm install` if npm ci refuses
 * the lock, as .ci/run always did: this registry lacks a Windows-only optional dependency of
 * vite). `always`: install even when it matches (a clean CI install).
 */
export function ensureNodeModules(root, { always = false } = {}) {
  const reason = always ? 'a clean install was asked for' : staleReason(root);
  if (!reason) return false;
  console.error(`Installing dependencies: ${reason}.`);
  // Without install scripts: the only one, better-sqlite3's, compiles SQLite (a minute); its
  // binary comes from the machine's cache or is built once (native-builds.mjs).
  const flags = ['--no-audit', '--no-fund', '--ignore-scripts'];
  if (!npm(root, ['ci', ...flags])) {
    console.error('npm ci failed; falling back to npm install');
    if (!npm(root, ['install', ...flags]))
      throw new SetupError('npm ci and npm install failed (their output is above)');
  }
  ensureNativeBuilds(root);
  return true;
}

/**
 * Puts @confluentinc/kafka-javascript into node_modules when it is not there (npm ci removes it:
 * it is no dependency of the workspace, see scripts/confluent-client.mjs); the first time on a
 * machine this builds it from source (minutes).
 */
export function ensureConfluentClient(root) {
  const script = join(root, 'scripts', 'confluent-client.mjs');
  const check = spawnSync(process.execPath, [script, '--check'], { cwd: root, stdio: 'ignore' });
  if (check.status === 0) return false;
  const run = spawnSync(process.execPath, [script], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0)
    throw new SetupError('@confluentinc/kafka-javascript could not be built (the cause is above)');
  return true;
}
