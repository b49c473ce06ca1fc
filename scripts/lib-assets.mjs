#!/usr/bin/env node
// The library's source files that tsc does not emit: plain CommonJS scripts (*.cjs) under
// libs/broadcast/src, such as the confluent adapter's DescribeGroups helper process
// (adapters/confluent/confluent-describe-child.cjs), which a compiled module finds beside itself.
// Every build of the library copies them into its output at the same relative path: the package's
// build script (dist/esm and dist/cjs), the private builds of the tests' child processes
// (test/support/faults/faults.ts, test/support/nest/startup-children.ts).
//
//   node scripts/lib-assets.mjs <outDir>...      (relative to the current directory)
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', 'libs', 'broadcast', 'src');

/** The library's *.cjs sources, absolute paths. */
export function libAssets(dir = SRC) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return libAssets(path);
    return entry.name.endsWith('.cjs') ? [path] : [];
  });
}

/** Copies every *.cjs source into each output directory, at its path relative to src/. */
export function copyLibAssets(outDirs) {
  for (const file of libAssets())
    for (const out of outDirs) {
      const target = join(out, relative(SRC, file));
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(file, target);
    }
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  copyLibAssets(process.argv.slice(2).map((d) => resolve(d)));
