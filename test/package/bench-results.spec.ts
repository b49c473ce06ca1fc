/**
 * The repository is the product, not a lab notebook (#39): bench/results keeps the latest full run,
 * the latest fleet runs, the charts docs/BENCHMARKS.md shows and the few files other documents cite,
 * at most 12 JSON files; earlier runs live in git history. And every file a document names under
 * bench/results (a figure's source, a chart) is there. A static check of the files, no broker.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { REPO_ROOT } from '../support/package/package-apps.js';

const MAX_JSON_FILES = 12;
const SKIP = new Set(['node_modules', 'dist', '.git', '.cache', '.kafka', 'coverage']);

/** Every markdown file under `dir`, outside dependencies, builds and caches. */
function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/**
 * What is wrong with `root`'s bench/results: too many JSON files, and names under bench/results
 * in a document that are not there (`bench/results/…` anywhere; `results/…` in bench/README.md).
 */
function benchResultsProblems(root: string): string[] {
  const results = join(root, 'bench', 'results');
  const problems: string[] = [];
  const json = readdirSync(results).filter((f) => f.endsWith('.json'));
  if (json.length > MAX_JSON_FILES)
    problems.push(
      `bench/results holds ${json.length} JSON files, more than ${MAX_JSON_FILES}: ${json.join(', ')}`,
    );
  for (const doc of markdownFiles(root)) {
    const text = readFileSync(doc, 'utf8');
    const named = [...text.matchAll(/bench\/results\/([\w./-]+\.(?:json|svg))(?![\w.])/g)].map(
      (m) => m[1],
    );
    if (relative(root, doc) === join('bench', 'README.md'))
      named.push(
        ...[...text.matchAll(/(?<![\w/])results\/([\w./-]+\.(?:json|svg))(?![\w.])/g)].map(
          (m) => m[1],
        ),
      );
    for (const name of new Set(named))
      if (!existsSync(join(results, name)))
        problems.push(`${relative(root, doc)} names bench/results/${name}, which is not there`);
  }
  return problems;
}

describe('bench/results', () => {
  it(`holds at most ${MAX_JSON_FILES} JSON files, and every one a document names`, () => {
    expect(benchResultsProblems(REPO_ROOT)).toEqual([]);
  });

  it('the check reports a thirteenth JSON file and a document naming a missing result', () => {
    const root = mkdtempSync(join(tmpdir(), 'nkb-bench-results-'));
    try {
      mkdirSync(join(root, 'bench', 'results', 'charts'), { recursive: true });
      mkdirSync(join(root, 'docs'));
      for (let i = 0; i < 13; i++)
        writeFileSync(join(root, 'bench', 'results', `r${i}.json`), '{}');
      writeFileSync(join(root, 'bench', 'results', 'charts', 'a.svg'), '<svg/>');
      writeFileSync(
        join(root, 'docs', 'B.md'),
        '![a](../bench/results/charts/a.svg) ![b](../bench/results/charts/b.svg) `bench/results/r1.json`',
      );
      writeFileSync(
        join(root, 'bench', 'README.md'),
        '`results/r2.json`, `results/gone.json`, not `lib/results/x.json` nor `results/partial.json.tmp`',
      );
      const problems = benchResultsProblems(root);
      expect(problems).toHaveLength(3);
      expect(problems[0]).toMatch(/^bench\/results holds 13 JSON files, more than 12/);
      expect(problems.slice(1).sort()).toEqual([
        'bench/README.md names bench/results/gone.json, which is not there',
        'docs/B.md names bench/results/charts/b.svg, which is not there',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
