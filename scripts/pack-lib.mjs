#!/usr/bin/env node
// Builds and packs the library exactly as `npm publish` would, into .cache/pack/.
// Prints the tarball's path as the last line; `--json` prints npm's pack report instead.
// Used by `npm run check:package` and test/package/matrix.spec.ts.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const PACK_DIR = join(ROOT, '.cache', 'pack');

/**
 * Packs libs/broadcast (its prepack builds dist/) into `destination` (emptied first) and returns
 * npm's report of the tarball.
 */
export function packLibrary(destination = PACK_DIR) {
  rmSync(destination, { recursive: true, force: true });
  mkdirSync(destination, { recursive: true });
  const out = execFileSync(
    'npm',
    ['pack', '--json', '--pack-destination', destination, '-w', 'nestjs-kafka-broadcast'],
    { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  // npm prints the prepack script's output before the JSON array.
  const report = JSON.parse(out.slice(out.indexOf('\n[') + 1))[0];
  return { ...report, path: join(destination, report.filename) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const report = packLibrary();
  if (process.argv.includes('--json')) console.log(JSON.stringify(report, null, 2));
  else {
    console.error(
      `${report.entryCount} files, ${report.size} B packed, ${report.unpackedSize} B unpacked`,
    );
    console.log(report.path);
  }
}
