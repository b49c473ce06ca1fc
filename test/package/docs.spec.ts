/**
 * The docs ship with the package (#28): the tarball, unpacked as a user finds it in node_modules,
 * holds the documents the README links, and every link of its README and shipped docs resolves
 * inside it (scripts/package-links.mjs, which `npm run check:package` runs on the built tarball
 * too). Packed here with --ignore-scripts: the links do not depend on the build, and the check
 * stays a few seconds.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkPackageLinks, headingSlugs } from '../../scripts/package-links.mjs';
import { REPO_ROOT } from '../support/package/package-apps.js';

describe('the packed package README and docs', () => {
  let work: string;
  let unpacked: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'nkb-package-docs-'));
    const out = execFileSync(
      'npm',
      [
        'pack',
        '--ignore-scripts',
        '--json',
        '--pack-destination',
        work,
        '-w',
        'nestjs-kafka-broadcast',
      ],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    );
    const [{ filename }] = JSON.parse(out.slice(out.indexOf('['))) as { filename: string }[];
    execFileSync('tar', ['-xzf', join(work, filename), '-C', work]);
    unpacked = join(work, 'package');
  });

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('ship the documents the README names', () => {
    const docs = readdirSync(join(unpacked, 'docs'));
    expect(docs).toEqual(expect.arrayContaining(['DEPLOYMENT.md', 'GUIDE.md', 'RELIABILITY.md']));
  });

  it('link only to files inside the tarball (anchors to headings that exist)', () => {
    expect(checkPackageLinks(unpacked)).toEqual([]);
  });
});

describe('the package link check', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'nkb-package-links-'));
    const repository = { url: 'git+https://github.com/o/r.git', directory: 'libs/p' };
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ repository }));
    mkdirSync(join(dir, 'docs'));
    writeFileSync(
      join(dir, 'docs', 'A.md'),
      '# A\n\n## Managed `Kafka`: cloud\n\n[up](../README.md#use)\n',
    );
    writeFileSync(
      join(dir, 'README.md'),
      [
        '## Use',
        '[ok](docs/A.md#managed-kafka-cloud) [self](#use) <https://example.com/x.md>',
        '[missing](docs/B.md) [anchor](docs/A.md#nowhere) [out](../../docs/A.md)',
        '[gh](https://github.com/o/r/blob/main/docs/C.md) [shipped](https://github.com/o/r/blob/main/libs/p/docs/A.md)',
        '```md',
        '[in a code block](nowhere.md)',
        '```',
      ].join('\n'),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports each kind of broken link, and nothing else', () => {
    expect(checkPackageLinks(dir).map((p) => p.replace(/:[^:]*$/, ''))).toEqual([
      'README.md:3: docs/B.md',
      'README.md:3: docs/A.md#nowhere',
      'README.md:3: ../../docs/A.md',
      'README.md:4: https://github.com/o/r/blob/main/docs/C.md',
      'README.md:4: https://github.com/o/r/blob/main/libs/p/docs/A.md',
    ]);
  });

  it('names anchors as GitHub does', () => {
    const slugs = headingSlugs('## Options from `@nestjs/config`: `forRootAsync`\n## A\n## A\n');
    expect([...slugs]).toEqual(['options-from-nestjsconfig-forrootasync', 'a', 'a-1']);
  });
});
