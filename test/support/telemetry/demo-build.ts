// The demo app (apps/demo) built for child processes, as `npm run build:demo` builds it, but into
// a private directory per source version (test/.results/demo/<version>), against the private
// library build of ensureLibBuilt(): other test files rebuild the shared dist/ at any moment,
// and a process that imports a half-written file dies. `nestjs-kafka-broadcast` resolves there
// through a node_modules entry whose package.json maps the package's entry points to that build.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from '../../../scripts/kafka-cluster.mjs';
import { ensureLibBuilt } from '../faults/faults.js';

/** The package's entry points (libs/broadcast/package.json `exports`), by file of the build. */
const ENTRIES = ['index', 'engine', 'terminus', 'microservices', 'locks', 'testing'] as const;

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path));
    else if (!entry.name.endsWith('.spec.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Builds the demo (once per version of it and of the library); returns its main.js. */
export function ensureDemoBuilt(): string {
  const libDist = dirname(fileURLToPath(ensureLibBuilt()));
  const libVersion = libDist.split('/').at(-2)!;
  const version = `${libVersion}-${Math.floor(newestMtime(join(REPO_ROOT, 'apps/demo/src'))).toString(36)}`;
  const builds = join(REPO_ROOT, 'test/.results/demo');
  const dir = join(builds, version);
  const main = join(dir, 'out/main.js');
  if (existsSync(join(dir, 'complete'))) return main;

  const building = join(builds, `${version}.${process.pid}.tmp`);
  rmSync(building, { recursive: true, force: true });
  const pkg = join(building, 'node_modules/nestjs-kafka-broadcast');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(building, 'package.json'), JSON.stringify({ type: 'module' }));
  symlinkSync(libDist, join(pkg, 'dist'));
  const exports = Object.fromEntries(
    ENTRIES.map((e) => [e === 'index' ? '.' : `./${e}`, `./dist/${e}.js`]),
  );
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({ name: 'nestjs-kafka-broadcast', type: 'module', exports }),
  );
  // apps/demo/tsconfig.app.json, with the package's types taken from the same build.
  const paths = Object.fromEntries(
    ENTRIES.map((e) => [
      e === 'index' ? 'nestjs-kafka-broadcast' : `nestjs-kafka-broadcast/${e}`,
      [join(libDist, `${e}.d.ts`)],
    ]),
  );
  writeFileSync(
    join(building, 'tsconfig.json'),
    JSON.stringify({
      extends: join(REPO_ROOT, 'apps/demo/tsconfig.app.json'),
      compilerOptions: { outDir: join(building, 'out'), sourceMap: false, paths },
      include: [join(REPO_ROOT, 'apps/demo/src/**/*')],
      exclude: [join(REPO_ROOT, 'apps/demo/src/**/*.spec.ts')],
    }),
  );
  execFileSync(
    process.execPath,
    [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(building, 'tsconfig.json')],
    { cwd: REPO_ROOT, stdio: 'pipe', timeout: 300_000 },
  );
  writeFileSync(join(building, 'complete'), new Date().toISOString());
  // Two workers may build the same version at once: the first to finish wins.
  if (existsSync(join(dir, 'complete'))) rmSync(building, { recursive: true, force: true });
  else {
    rmSync(dir, { recursive: true, force: true });
    renameSync(building, dir);
  }
  for (const old of readdirSync(builds))
    if (old !== version && !old.startsWith(`${version}.`))
      rmSync(join(builds, old), { recursive: true, force: true });
  return main;
}
