#!/usr/bin/env node
// Packs the library as `npm publish` would and lints the tarball: publint (package.json, exports,
// files) and @arethetypeswrong/cli (types under node10, node16 from CJS and ESM, and bundler).
// Exits non-zero on any error of either tool. Part of .ci/run.
import { execFileSync } from 'node:child_process';
import { packLibrary } from './pack-lib.mjs';

const tarball = packLibrary();
console.log(
  `packed ${tarball.filename}: ${tarball.entryCount} files, ${(tarball.size / 1000).toFixed(1)} kB packed, ` +
    `${(tarball.unpackedSize / 1000).toFixed(1)} kB unpacked`,
);
const run = (bin, args) =>
  execFileSync('npx', ['--no-install', bin, ...args], { stdio: 'inherit' });
run('publint', ['run', tarball.path, '--strict']);
run('attw', [tarball.path, '--format', 'table-flipped']);
