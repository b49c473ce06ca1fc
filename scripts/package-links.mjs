// The links of the packed package's Markdown (#28): read offline from node_modules, every link in
// the package README and in the docs it ships must resolve inside the tarball. Plain Node, no
// dependencies; used by scripts/check-package.mjs and test/package/docs.spec.ts.
//
// Problems reported, one line each:
// - a relative link to a file the tarball lacks, or out of the package;
// - an anchor (`#section`, `FILE.md#section`) naming no heading of that Markdown file;
// - in the package README, a link to a Markdown file of this repository on GitHub: a document the
//   README needs ships in the package and is linked relatively;
// - in any shipped document, a GitHub link to a file the tarball holds.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** `[text](target)`, `![alt](target)`, `<https://…>` and `[ref]: target`, outside code. */
export function markdownLinks(text) {
  const links = [];
  let fenced = false;
  text.split('\n').forEach((raw, i) => {
    if (/^\s*(```|~~~)/.test(raw)) fenced = !fenced;
    if (fenced || /^\s*(```|~~~)/.test(raw)) return;
    const line = raw.replace(/`[^`]*`/g, '');
    const push = (target) => links.push({ target, line: i + 1 });
    for (const m of line.matchAll(
      /!?\[(?:[^\]]|\][^(])*?\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g,
    ))
      push(m[1]);
    for (const m of line.matchAll(/<((?:https?|mailto):[^>\s]+)>/g)) push(m[1]);
    const ref = /^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line);
    if (ref) push(ref[1]);
  });
  return links;
}

/** GitHub's anchors of a Markdown file's headings (`## Managed Kafka` → `managed-kafka`). */
export function headingSlugs(text) {
  const slugs = new Set();
  const seen = new Map();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    slugs.add(n === 0 ? base : `${base}-${n}`);
  }
  return slugs;
}

function markdownFiles(dir) {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.md') && !f.split(sep).includes('node_modules'))
    .sort();
}

/** `owner/name` from package.json's repository (`git+https://github.com/owner/name.git`). */
function githubRepo(dir) {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const url = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
  const m = /github\.com[/:]([^/]+\/[^/#]+?)(?:\.git)?$/.exec(url ?? '');
  return m ? { name: m[1], directory: pkg.repository?.directory ?? '' } : undefined;
}

/**
 * Checks the Markdown of an unpacked package (the folder holding its package.json, as `tar -xzf`
 * leaves it in `package/`). Returns the problems, `file:line: …`, none when every link resolves.
 */
export function checkPackageLinks(dir) {
  const problems = [];
  const repo = githubRepo(dir);
  const slugsOf = new Map();
  const slugs = (file) => {
    if (!slugsOf.has(file)) slugsOf.set(file, headingSlugs(readFileSync(file, 'utf8')));
    return slugsOf.get(file);
  };
  for (const name of markdownFiles(dir)) {
    const file = join(dir, name);
    for (const { target, line } of markdownLinks(readFileSync(file, 'utf8'))) {
      const at = `${name}:${line}: ${target}`;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
        const blob =
          repo && new RegExp(`^https://github\\.com/${repo.name}/blob/[^/]+/([^#?]+)`, 'i');
        const path = blob?.exec(target)?.[1];
        if (!path) continue;
        const inPackage = repo.directory && path.startsWith(`${repo.directory}/`);
        const shipped = inPackage && existsSync(join(dir, path.slice(repo.directory.length + 1)));
        if (shipped) problems.push(`${at}: the package ships this file; link it relatively`);
        else if (name === 'README.md' && path.endsWith('.md'))
          problems.push(
            `${at}: a document on GitHub only; ship it in the package, link it relatively`,
          );
        continue;
      }
      const [pathPart, anchor] = target.split('#');
      const resolved = pathPart ? resolve(dirname(file), decodeURI(pathPart)) : file;
      const inside = relative(dir, resolved);
      if (inside.startsWith('..') || isAbsolute(inside)) {
        problems.push(`${at}: points out of the package`);
      } else if (!existsSync(resolved) || !statSync(resolved).isFile()) {
        problems.push(`${at}: no such file in the package (${inside})`);
      } else if (anchor && resolved.endsWith('.md') && !slugs(resolved).has(anchor)) {
        problems.push(`${at}: no heading #${anchor} in ${inside}`);
      }
    }
  }
  return problems;
}
