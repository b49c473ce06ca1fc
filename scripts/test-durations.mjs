#!/usr/bin/env node
// Writes test/file-durations.json (the order test/support/duration-sequencer.ts starts spec files
// in: the longest first) from the output of a clean-clone `bash .ci/run`: Vitest's default
// reporter prints one line per file with its whole time, hooks included (" ✓  integration
// test/faults/soak.spec.ts (2 tests) 357558ms"). Its JSON report cannot serve: a file's times
// there span its tests alone, and a file whose work is in beforeAll shows a few milliseconds. A
// file run in several passes keeps its longest time; a file that failed keeps its earlier time
// if that is longer (a hook's timeout ends it early).
//
//   node scripts/test-durations.mjs <CI output>... [--source="what the run was"]
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs, stripVTControlCharacters } from 'node:util';

const ROOT = join(import.meta.dirname, '..');
const { values, positionals } = parseArgs({
  options: { source: { type: 'string' } },
  allowPositionals: true,
});
if (positionals.length === 0) {
  console.error('usage: node scripts/test-durations.mjs <CI output>... [--source=...]');
  process.exit(1);
}
const out = join(ROOT, 'test/file-durations.json');
const previous = JSON.parse(readFileSync(out, 'utf8'));
const FILE_LINE = /^\s*([✓❯×])\s+\S+\s+(\S+\.spec\.ts) \(.*\) (\d+)ms$/;
const seconds = {};
for (const log of positionals) {
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    const match = FILE_LINE.exec(stripVTControlCharacters(line));
    if (!match) continue;
    const [, mark, path, ms] = match;
    let took = Math.round(Number(ms) / 100) / 10;
    if (mark !== '✓') took = Math.max(took, previous.seconds?.[path] ?? 0);
    seconds[path] = Math.max(seconds[path] ?? 0, took);
  }
}
const sorted = Object.fromEntries(Object.entries(seconds).sort((a, b) => b[1] - a[1]));
writeFileSync(
  out,
  `${JSON.stringify({ about: previous.about, source: values.source ?? positionals.join(', '), seconds: sorted }, null, 2)}\n`,
);
console.error(`${Object.keys(sorted).length} files written to ${relative(ROOT, out)}`);
