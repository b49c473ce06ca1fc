/**
 * The library is self-contained: no file under libs/ (its specs and their support included)
 * imports from the repository's test/ folder, so the library's own unit specs run from its folder
 * alone, on the in-memory broker that `/testing` ships (its manual mode for the state machines).
 * A static check of the import statements (next to package/layers.spec.ts, which checks src/).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '../..');
const TEST = join(REPO, 'test');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (['node_modules', 'dist'].includes(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path);
    return /\.[cm]?[tj]s$/.test(entry.name) ? [path] : [];
  });
}

/** Every module a file names: import/export … from, a bare import, import(), require(). */
function specifiersOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]([^'"]+)['"]/g;
  return [...text.matchAll(pattern)].map((m) => m[1]!);
}

describe('the library imports nothing from test/', () => {
  const sources = files(join(REPO, 'libs'));

  it('finds the library files, specs included', () => {
    expect(sources.filter((file) => file.endsWith('.spec.ts')).length).toBeGreaterThan(40);
  });

  it('no file under libs/ imports a file of test/', () => {
    const reaching = sources.flatMap((file) =>
      specifiersOf(file)
        .filter((s) => s.startsWith('.'))
        .filter((s) => {
          const target = resolve(dirname(file), s);
          return target === TEST || target.startsWith(`${TEST}/`);
        })
        .map((s) => `${relative(REPO, file)} → ${s}`),
    );
    expect(reaching).toEqual([]);
  });
});
