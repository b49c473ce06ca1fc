#!/usr/bin/env node
// Writes test/file-durations.json (the order test/support/duration-sequencer.ts starts spec files
// in: the longest first) from Vitest JSON reports, e.g. the whole suite's and the passes' of a
// clean-clone `bash .ci/run` (CI_KEEP_REPORTS=<dir> keeps them). A file in several reports keeps
// its longest time.
//
//   node scripts/test-durations.mjs <report.json>... [--source="what the reports are"]
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = join(import.meta.dirname, '..');
const { values, positionals } = parseArgs({
  options: { source: { type: 'string' } },
  allowPositionals: true,
});
if (positionals.length === 0) {
  console.error('usage: node scripts/test-durations.mjs <Vitest JSON report>... [--source=...]');
  process.exit(1);
}
const seconds = {};
for (const report of positionals) {
  for (const file of JSON.parse(readFileSync(report, 'utf8')).testResults ?? []) {
    const path = relative(ROOT, file.name);
    const took = ((file.endTime ?? 0) - (file.startTime ?? 0)) / 1000;
    seconds[path] = Math.max(seconds[path] ?? 0, Math.round(took * 10) / 10);
  }
}
const sorted = Object.fromEntries(Object.entries(seconds).sort((a, b) => b[1] - a[1]));
const out = join(ROOT, 'test/file-durations.json');
const previous = JSON.parse(readFileSync(out, 'utf8'));
writeFileSync(
  out,
  `${JSON.stringify({ about: previous.about, source: values.source ?? positionals.join(', '), seconds: sorted }, null, 2)}\n`,
);
console.error(`${Object.keys(sorted).length} files written to ${relative(ROOT, out)}`);
