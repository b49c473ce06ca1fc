/**
 * The order in which Vitest hands spec files to its workers: the longest first, by the seconds
 * test/file-durations.json records for each (a clean-clone CI run). With files run several at a
 * time, longest-first keeps a long file from starting last and running alone at the end.
 *
 * Vitest's own order needs its cache of earlier results, which a clean clone (what CI runs) does
 * not have: it then starts the largest files first, by bytes. On 2026-12-07 that left the whole
 * suite at 1,961 s on three workers for 5,225 s of files (the lower bound 1,742 s).
 *
 * A file not in the record (a new one) counts as UNKNOWN_SECONDS: early, but after the few that
 * are known to take minutes. Both projects (unit and integration) share one order: they run in
 * the same pool.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const ROOT = join(import.meta.dirname, '../..');
const UNKNOWN_SECONDS = 60;

function recordedSeconds(): Record<string, number> {
  try {
    const file = JSON.parse(readFileSync(join(ROOT, 'test/file-durations.json'), 'utf8')) as {
      seconds?: Record<string, number>;
    };
    return file.seconds ?? {};
  } catch {
    // No record (or a broken one): every file is unknown, and they start in path order.
    return {};
  }
}

export class DurationSequencer extends BaseSequencer {
  private readonly seconds = recordedSeconds();

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const expected = (spec: TestSpecification) =>
      this.seconds[relative(ROOT, spec.moduleId)] ?? UNKNOWN_SECONDS;
    return [...files].sort(
      (a, b) => expected(b) - expected(a) || a.moduleId.localeCompare(b.moduleId),
    );
  }
}
