#!/usr/bin/env node
// npm run bench [-- --quick] [-- --only=1,3] [-- --skip=5] [-- --verbose] [-- --out=file]
// Rebuilds libs/broadcast (npm run build:lib) when dist is missing or older than any source file,
// then runs the benchmark runner (bench/run.mjs) in a fresh process against the built package.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const lib = join(root, 'libs', 'broadcast');

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts'))
      newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function distTime() {
  try {
    return statSync(join(lib, 'dist', 'esm', 'index.js')).mtimeMs;
  } catch {
    return -1;
  }
}

const inputs = Math.max(
  newestSource(join(lib, 'src')),
  statSync(join(lib, 'tsconfig.lib.json')).mtimeMs,
  statSync(join(root, 'tsconfig.json')).mtimeMs,
);
if (distTime() < inputs) {
  console.error(
    '[bench] libs/broadcast/dist is missing or stale: npm run build:lib',
  );
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const build = spawnSync(npm, ['run', 'build:lib'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// The runner hosts up to twenty engines or raw consumers in one process (benchmarks 2, 3 and 8). On
// @confluentinc/kafka-javascript each native consume call holds one of libuv's threads for up to
// 100 ms, and Node starts four: twenty consumers would queue for them (a receipt took 1.5 s with
// four threads, 22 ms with 32; docs/BENCHMARKS.md). A process hosting that many is configured as
// DEPLOYMENT.md says, for every side alike (the other clients use no pool thread to read).
const run = spawnSync(
  process.execPath,
  [join(root, 'bench', 'run.mjs'), ...process.argv.slice(2)],
  {
    cwd: root,
    stdio: 'inherit',
    env: { UV_THREADPOOL_SIZE: '64', ...process.env },
  },
);
process.exit(run.status ?? 1);
