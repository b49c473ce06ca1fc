/**
 * What the package README's quick start says to do, read from its blocks (#21, #28): the app
 * `nest new` makes, the README's npm commands, its titled blocks written over or beside the
 * generated files (```ts title="src/main.ts"```), then the app's own scripts.
 *
 * The README's shape this reads, in its `## Quick start…` section:
 * - the first ```bash block: `npx @nestjs/cli@<tag> new <name> [flags]`, `cd <name>`, then only
 *   `npm …` commands;
 * - the last ```bash block: `npm test` / `npm run <script>` lines (run in order before the
 *   instances), `<VAR>=<n> npm run <script> &` lines (the instances), one
 *   `curl -X <METHOD> localhost:<n><path>` and `# both instances log: <text>`.
 * A trailing ` # comment` on a command line is ignored. Any other line fails with the line named,
 * so that a README change is met here on purpose.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from './package-apps.js';
import { readmeBlocks } from './readme-blocks.js';

export const PACKAGE_README = join(REPO_ROOT, 'libs', 'broadcast', 'README.md');

export interface QuickStart {
  /** The CLI package npx runs (`@nestjs/cli@latest`). */
  cli: string;
  /** The arguments after `new` (`['products', '--package-manager', 'npm']`). */
  newArgs: string[];
  /** The folder `nest new` makes and the README `cd`s into. */
  appName: string;
  /** The commands after `cd`, as npm arguments (`['install', 'nestjs-kafka-broadcast', …]`). */
  npm: string[][];
  /** path (relative to the app folder) → content, from the titled blocks. */
  files: Map<string, string>;
  /** The app's scripts the run block runs before the instances (`['test', 'build']`). */
  scripts: string[];
  /** The environment variable that sets an instance's HTTP port (`PORT`). */
  portVariable: string;
  /** The script each instance runs (`start:prod`). */
  startScript: string;
  /** The request that publishes: sent to the first instance. */
  request: { method: string; path: string };
  /** What every instance logs once the broadcast reached it. */
  expectedLog: string;
  /** The README's spec files (`src/product-cache.spec.ts`): the app's test must run them. */
  specs: string[];
}

function fail(line: string, why: string): never {
  throw new Error(`README quick start: ${why}: ${JSON.stringify(line)}`);
}

/** The block's lines, trimmed, blank ones dropped, a trailing ` # comment` cut off. */
function commands(code: string): string[] {
  return code
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map((l) => (l.startsWith('#') ? l : l.replace(/\s+#\s.*$/, '')));
}

/** Reads the quick start from the package README. */
export async function readQuickStart(readme = PACKAGE_README): Promise<QuickStart> {
  const blocks = readmeBlocks(readme, await readFile(readme, 'utf8'));
  const bash = blocks.filter((b) => b.lang === 'bash' && /^Quick start\b/.test(b.section));
  if (bash.length < 2)
    throw new Error('README quick start: expected a setup and a run ```bash block');

  const [scaffold, cd, ...rest] = commands(bash[0].code);
  const made = /^npx (@nestjs\/cli@\S+) new (\S+)((?: \S+)*)$/.exec(scaffold ?? '');
  if (!made) fail(scaffold ?? '', 'the setup must start with `npx @nestjs/cli@<tag> new <name>`');
  const [, cli, appName, flags] = made;
  if (cd !== `cd ${appName}`) fail(cd ?? '', `the second setup line must be \`cd ${appName}\``);
  const npm = rest.map((line) => {
    const [tool, ...args] = line.split(/\s+/);
    if (tool !== 'npm') fail(line, 'a setup line that is not an npm command');
    return args;
  });

  const files = new Map<string, string>();
  for (const block of blocks.filter((b) => b.title)) {
    if (files.has(block.title!)) fail(block.title!, 'two blocks titled');
    files.set(block.title!, `${block.code}\n`);
  }

  const scripts: string[] = [];
  let portVariable = '';
  let startScript = '';
  let request: QuickStart['request'] | undefined;
  let expectedLog = '';
  for (const line of commands(bash[bash.length - 1].code)) {
    let m: RegExpExecArray | null;
    if (line === 'npm test') scripts.push('test');
    else if ((m = /^npm run (\S+)$/.exec(line))) scripts.push(m[1]);
    else if ((m = /^(\w+)=\d+ npm run (\S+) &$/.exec(line)))
      [portVariable, startScript] = [m[1], m[2]];
    else if ((m = /^curl -X (\w+) localhost:\d+(\/\S*)$/.exec(line)))
      request = { method: m[1], path: m[2] };
    else if ((m = /^# both instances log: (.+)$/.exec(line))) expectedLog = m[1];
    else fail(line, 'a run line this test does not know');
  }
  if (!startScript || !request || !expectedLog) {
    throw new Error('README quick start: the run block lacks an instance, a curl or the log line');
  }
  const specs = [...files.keys()].filter((path) => /^src\/.*\.spec\.ts$/.test(path));
  if (specs.length === 0) throw new Error('README: no block titled src/….spec.ts (the unit test)');
  if (!scripts.includes('test'))
    throw new Error('README quick start: the run block lacks npm test');
  const newArgs = [appName, ...flags.split(' ').filter((f) => f !== '')];
  return {
    cli,
    newArgs,
    appName,
    npm,
    files,
    scripts,
    portVariable,
    startScript,
    request,
    expectedLog,
    specs,
  };
}
