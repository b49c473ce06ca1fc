/**
 * The fenced code blocks of a README, as test/package/readme-code-blocks.spec.ts (type-checks them) and the
 * package matrix's README app (builds and runs them) read them.
 *
 * Markers, invisible on npm and GitHub (both render only the info string's first word):
 * - ```ts title="src/app.module.ts"```: the block is that file of the quick-start app, at that path
 *   relative to the app's folder (any language: ```json title="tsconfig.json"``` too);
 * - `<!-- readme-check: skip -->` on the line before a fence: a deliberately partial block that the
 *   type check leaves out.
 */

export const SKIP_MARKER = '<!-- readme-check: skip -->';

export interface ReadmeBlock {
  readme: string;
  /** The info string's first word: `ts`, `bash`, `json`, … ('' for a bare fence). */
  lang: string;
  /** The `title="…"` of the info string: the block's file path in the quick-start app. */
  title?: string;
  /** The `## ` heading the block is under ('' before the first one). */
  section: string;
  /** 1-based line of the block's first code line in the README. */
  line: number;
  code: string;
  skipped: boolean;
}

const OPENING = /^```(\S*)(.*)$/;
const TITLE = /\btitle="([^"]+)"/;

/** Every fenced block of a README, in order. */
export function readmeBlocks(readme: string, text: string): ReadmeBlock[] {
  const lines = text.split('\n');
  const blocks: ReadmeBlock[] = [];
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].startsWith('## ')) section = lines[i].slice(3).trim();
    const opening = OPENING.exec(lines[i]);
    if (!opening) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end])) end++;
    blocks.push({
      readme,
      lang: opening[1],
      title: TITLE.exec(opening[2])?.[1],
      section,
      line: start + 1,
      code: lines.slice(start, end).join('\n'),
      skipped: lines[i - 1]?.trim() === SKIP_MARKER,
    });
    i = end;
  }
  return blocks;
}

/** Whether a block is TypeScript (```ts or ```typescript). */
export function isTypeScript(block: ReadmeBlock): boolean {
  return block.lang === 'ts' || block.lang === 'typescript';
}
