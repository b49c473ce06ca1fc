#!/usr/bin/env node
// Packs the library as `npm publish` would and lints the tarball: publint (package.json, exports,
// files), @arethetypeswrong/cli (types under node10, node16 from CJS and ESM, and bundler), and
// the links of its Markdown, unpacked as a user gets it: every link in the README and the shipped
// docs resolves inside the tarball (scripts/package-links.mjs); and that the operations files ship
// (the Prometheus rules, the Grafana dashboard, the operations page). Exits non-zero on any error.
// Part of .ci/run.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packLibrary } from './pack-lib.mjs';
import { checkPackageLinks } from './package-links.mjs';

const tarball = packLibrary();
console.log(
  `packed ${tarball.filename}: ${tarball.entryCount} files, ${(tarball.size / 1000).toFixed(1)} kB packed, ` +
    `${(tarball.unpackedSize / 1000).toFixed(1)} kB unpacked`,
);
const run = (bin, args) =>
  execFileSync('npx', ['--no-install', bin, ...args], { stdio: 'inherit' });
run('publint', ['run', tarball.path, '--strict']);
run('attw', [tarball.path, '--format', 'table-flipped']);

const packed = new Set(tarball.files.map((f) => f.path));
const SHIPPED = [
  'ops/prometheus/broadcast.rules.yml',
  'ops/grafana/broadcast-fleet.dashboard.json',
  'docs/OPERATIONS.md',
];
const missing = SHIPPED.filter((f) => !packed.has(f));
if (missing.length > 0) {
  console.error(`not in the tarball: ${missing.join(', ')}`);
  process.exitCode = 1;
} else console.log(`ships ${SHIPPED.join(', ')}`);

const unpacked = mkdtempSync(join(tmpdir(), 'nkb-check-package-'));
try {
  execFileSync('tar', ['-xzf', tarball.path, '-C', unpacked]);
  const problems = checkPackageLinks(join(unpacked, 'package'));
  if (problems.length > 0) {
    console.error(`links in the packed Markdown that do not resolve inside the tarball:`);
    for (const problem of problems) console.error(`  ${problem}`);
    process.exitCode = 1;
  } else console.log('every link in the packed README and docs resolves inside the tarball');
} finally {
  rmSync(unpacked, { recursive: true, force: true });
}
