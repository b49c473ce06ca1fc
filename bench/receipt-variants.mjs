#!/usr/bin/env node
// Copies of a built library, each with one part of a receipt taken out, to measure what that part
// costs (bench/ab-receipts.mjs). Bench-only experiments, not designs the library offers:
//
//   background  the receipt expects the roster's latest background view (roster.instances(),
//               which starts its polling) instead of a look at the broker before the send
//   publisher   only instance `i0` (benchmark 8's publisher) reads the receipts topic, so the
//               acknowledgements no longer reach every instance
//   both        the two at once
//
//   node bench/receipt-variants.mjs [--from=libs/broadcast/dist] [--to=.cache/receipt-variants]
//
// Each variant is <to>/<name>/esm/index.js. `--to` stays inside the repository so that the copies
// resolve the clients from its node_modules.
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from './lib/common.mjs';

const { values: args } = parseArgs({
  options: {
    from: { type: 'string', default: 'libs/broadcast/dist' },
    to: { type: 'string', default: '.cache/receipt-variants' },
  },
});
const from = resolve(REPO_ROOT, args.from);
const to = resolve(REPO_ROOT, args.to);

const PATCHES = {
  background: [
    [
      'esm/core/features/receipts/receipt-publish.js',
      'const live = await roster.look();',
      'const live = roster.instances();',
    ],
  ],
  publisher: [
    [
      'esm/engine/engine-features.js',
      /if \(o\.receipts\)(\s*)registry\.add\(o\.receipts\.topic/,
      "if (o.receipts && o.instanceId === 'i0')$1registry.add(o.receipts.topic",
    ],
  ],
};
PATCHES.both = [...PATCHES.background, ...PATCHES.publisher];

for (const [name, patches] of Object.entries(PATCHES)) {
  const dir = join(to, name);
  rmSync(dir, { recursive: true, force: true });
  cpSync(from, dir, { recursive: true });
  for (const [file, search, replace] of patches) {
    const path = join(dir, file);
    const source = readFileSync(path, 'utf8');
    const patched = source.replace(search, replace);
    if (patched === source) throw new Error(`${name}: ${file} has no ${search}; rebuild or update`);
    writeFileSync(path, patched);
  }
  console.log(`${name}: ${join(dir, 'esm/index.js')}`);
}
