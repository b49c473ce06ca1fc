// Builds @confluentinc/kafka-javascript from source into the cache (scripts/confluent-client.mjs).
// A failed build must say why in the first lines a CI reader sees: the compiler's output (a few
// thousand lines of warnings) goes to a log file beside the cache, and a failure prints the lines
// of that log that name an error, its last lines and its path. The toolchain and the -dev headers
// are checked before the build starts, so their absence is named at once, not after minutes.
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { CONFLUENT_PACKAGE, CONFLUENT_VERSION, cacheKey } from './cache.mjs';

/** What the build needs on PATH, and the headers CKJS_LINKING=dynamic links against. */
const TOOLS = ['cc', 'c++', 'make', 'python3'];
const HEADERS = [
  ['openssl/ssl.h', 'libssl-dev (Debian, Ubuntu) or openssl-devel (RHEL, Fedora)'],
  ['zlib.h', 'zlib1g-dev (Debian, Ubuntu) or zlib-devel (RHEL, Fedora)'],
];
export const NEEDS =
  'a C/C++ toolchain (cc, c++), make, python3, and the OpenSSL and zlib headers ' +
  '(libssl-dev and zlib1g-dev on Debian and Ubuntu)';

/** Why the build cannot start here, or undefined: missing tools first, then missing headers. */
export function missingPrerequisites(env = process.env) {
  const tools = TOOLS.filter(
    (tool) => spawnSync('sh', ['-c', `command -v ${tool}`], { env }).status !== 0,
  );
  if (tools.length > 0) return `${tools.join(', ')} not found on PATH`;
  const headers = HEADERS.filter(([header]) => {
    const probe = spawnSync('cc', ['-E', '-x', 'c', '-'], {
      input: `#include <${header}>\n`,
      env,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    return probe.status !== 0;
  });
  if (headers.length === 0) return undefined;
  return headers.map(([header, pkg]) => `${header} not found (install ${pkg})`).join('; ');
}

/** The log's lines that name an error (compiler, linker, node-gyp, npm), first ones first. */
export function causeLines(log, max = 6) {
  const wanted = /\b(fatal error|error|undefined reference|cannot find|No such file)\b|ERR!/i;
  const noise = /\bwarning\b|-Werror|gyp info|^\s*\|/i;
  const found = [];
  for (const raw of log.split('\n')) {
    const line = raw.trim();
    if (!line || !wanted.test(line) || noise.test(line) || found.includes(line)) continue;
    found.push(line);
    if (found.length === max) break;
  }
  return found;
}

/** A failed build, worded so the cause comes first: the report CI prints. */
export function failureReport({ step, log, logPath }) {
  const causes = causeLines(log);
  const tail = log.trimEnd().split('\n').slice(-15);
  return [
    `BUILD FAILED: ${CONFLUENT_PACKAGE}@${CONFLUENT_VERSION} for ${cacheKey()} (${step})`,
    ...(causes.length > 0 ? ['cause:', ...causes.map((l) => `  ${l}`)] : ['cause: see the log']),
    'last lines of the build log:',
    ...tail.map((l) => `  ${l}`),
    `full log: ${logPath}`,
    `the build needs ${NEEDS}; CKJS_LINKING=dynamic links the system's OpenSSL and zlib`,
  ].join('\n');
}

/** Node's headers for this Node: npm_config_nodedir, else the runtime's own include/ when shipped. */
function nodeDir() {
  if (process.env.npm_config_nodedir) return process.env.npm_config_nodedir;
  const prefix = join(dirname(process.execPath), '..');
  return existsSync(join(prefix, 'include', 'node', 'node.h')) ? prefix : undefined;
}

/**
 * Builds into a temporary folder beside `target`, then moves it in whole (nothing half-built is
 * ever in the cache). Throws an Error whose message is the failure report.
 */
export function build(target, say) {
  const missing = missingPrerequisites();
  if (missing)
    throw new Error(
      `BUILD NOT STARTED: ${CONFLUENT_PACKAGE}@${CONFLUENT_VERSION}: ${missing}.\n` +
        `The build needs ${NEEDS}.`,
    );
  mkdirSync(dirname(target), { recursive: true });
  const work = mkdtempSync(join(dirname(target), '.build-'));
  const logPath = `${target}.build.log`;
  const started = Date.now();
  try {
    // npm 11 asks that a package's install script be allowed (it warns, later versions refuse).
    const manifest = { private: true, allowScripts: { [CONFLUENT_PACKAGE]: true } };
    writeFileSync(join(work, 'package.json'), `${JSON.stringify(manifest)}\n`);
    // No attempt at the release host (not reachable from CI here); the system's OpenSSL and zlib.
    const env = { ...process.env, CKJS_LINKING: 'dynamic', npm_config_build_from_source: 'true' };
    const headers = nodeDir();
    if (headers) env.npm_config_nodedir = headers;
    say(`building ${CONFLUENT_PACKAGE}@${CONFLUENT_VERSION} from source for ${cacheKey()}`);
    say(`(minutes; the compiler's output goes to ${logPath})`);
    const args = ['install', `${CONFLUENT_PACKAGE}@${CONFLUENT_VERSION}`, '--no-audit'];
    args.push('--no-fund', '--no-save', '--foreground-scripts');
    const fd = openSync(logPath, 'w');
    const result = spawnSync('npm', args, { cwd: work, env, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    if (result.status !== 0) {
      const why = result.error ? result.error.message : `exit ${result.status ?? result.signal}`;
      const log = readFileSync(logPath, 'utf8');
      throw new Error(failureReport({ step: `npm install: ${why}`, log, logPath }));
    }
    const pkg = join(work, 'node_modules', ...CONFLUENT_PACKAGE.split('/'));
    prune(pkg);
    const load = loads(pkg);
    if (load !== true) {
      const log = `${readFileSync(logPath, 'utf8')}\nerror: the built addon does not load: ${load}`;
      throw new Error(failureReport({ step: 'load of the built addon', log, logPath }));
    }
    const seconds = Math.round((Date.now() - started) / 1000);
    writeFileSync(join(work, 'complete.json'), `${JSON.stringify({ seconds }, null, 2)}\n`);
    rmSync(target, { recursive: true, force: true });
    renameSync(work, target);
    say(`built in ${seconds} s, cached in ${target}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Drops what only the build needed (librdkafka's sources, objects and static libraries: about
 * 280 MB). Left: the addon (build/Release) and librdkafka's shared libraries (build/deps, the
 * addon's rpath).
 */
export function prune(dir) {
  for (const only of ['deps', 'src']) rmSync(join(dir, only), { recursive: true, force: true });
  const release = join(dir, 'build', 'Release');
  for (const entry of readdirSync(release))
    if (!entry.endsWith('.node')) rmSync(join(release, entry), { recursive: true, force: true });
  const libs = join(dir, 'build', 'deps');
  for (const entry of readdirSync(libs))
    if (!/\.so(\.\d+)*$/.test(entry)) rmSync(join(libs, entry), { recursive: true, force: true });
}

/**
 * Loads the package in a child Node (a failed dlopen must not end this script): true, or the
 * error's line of the child's output (the dlopen's reason), not its stack.
 */
export function loads(dir) {
  const code = `require(${JSON.stringify(dir)})`;
  const result = spawnSync(process.execPath, ['-e', code], { encoding: 'utf8' });
  if (result.status === 0) return true;
  const stderr = result.stderr.trim();
  return stderr.split('\n').find((line) => /^\w*Error\b/.test(line)) ?? stderr;
}
