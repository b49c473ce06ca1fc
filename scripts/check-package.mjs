#!/usr/bin/env node
// Packs the library as `npm publish` would and lints the tarball: publint (package.json, exports,
// files) and @arethetypeswrong/cli (types under node10, node16 from CJS and ESM, and bundler).
// Also checks that the operations files ship (the Prometheus rules, the Grafana dashboard, the
// operations page) and that every relative link of the package README names a packed file.
// Exits non-zero on any error. Part of .ci/run.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packLibrary } from './pack-lib.mjs';

const tarball = packLibrary();
console.log(
  `packed ${tarball.filename}: ${tarball.entryCount} files, ${(tarball.size / 1000).toFixed(1)} kB packed, ` +
    `${(tarball.unpackedSize / 1000).toFixed(1)} kB unpacked`,
);
const packed = new Set(tarball.files.map((f) => f.path));
const SHIPPED = [
  'ops/prometheus/broadcast.rules.yml',
  'ops/grafana/broadcast-fleet.dashboard.json',
  'docs/OPERATIONS.md',
  'README.md',
];
const missing = SHIPPED.filter((f) => !packed.has(f));
const readme = readFileSync(join(import.meta.dirname, '../libs/broadcast/README.md'), 'utf8');
const links = [...readme.matchAll(/\]\((\.?\/?(?:ops|docs)\/[^)#\s]+)/g)].map((m) =>
  m[1].replace(/^\.\//, ''),
);
const dangling = links.filter((l) => !packed.has(l));
if (missing.length || dangling.length || !links.includes('docs/OPERATIONS.md')) {
  console.error(
    `not in the tarball: ${[...new Set([...missing, ...dangling])].join(', ') || '-'}; ` +
      `README links to ops/ and docs/: ${links.join(', ') || 'none'} (docs/OPERATIONS.md expected)`,
  );
  process.exit(1);
}
console.log(`ships ${SHIPPED.join(', ')}; README links ${links.join(', ')}`);
const run = (bin, args) =>
  execFileSync('npx', ['--no-install', bin, ...args], { stdio: 'inherit' });
run('publint', ['run', tarball.path, '--strict']);
run('attw', [tarball.path, '--format', 'table-flipped']);
