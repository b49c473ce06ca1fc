// What the README's two commands (`npm run demo`, `npm test`) need before they can run, checked
// before anything else so that a missing piece ends in one line that says what to do, not in a
// stack trace: Node 24 (`engines`), and a Kafka broker or what starting one takes (Java 17+, and
// Maven for the first download of the broker's jars). Plain Node, no dependencies: it runs before
// `npm ci`, and possibly on an older Node (to say so).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { CACHE_DIR, resolveVersion } from '../kafka/jars.mjs';

/** A setup step that cannot go on: its message is the whole report (no stack). */
export class SetupError extends Error {}

export const REQUIRED_NODE_MAJOR = 24;

/**
 * Fails unless `version` (`v24.21.0`) is Node 24 or newer, naming the Node found.
 * SETUP_ANY_NODE=1 lets an older one through (`CI_NODE=machine bash .ci/run`, on purpose).
 */
export function checkNode(
  version = process.version,
  execPath = process.execPath,
  env = process.env,
) {
  const major = Number(version.replace(/^v/, '').split('.')[0]);
  if (major >= REQUIRED_NODE_MAJOR || env.SETUP_ANY_NODE === '1') return;
  throw new SetupError(
    `Node ${REQUIRED_NODE_MAJOR} or newer is needed (package.json engines: >=${REQUIRED_NODE_MAJOR}); ` +
      `this is Node ${version} (${execPath}). Put a Node ${REQUIRED_NODE_MAJOR} first on PATH ` +
      `(e.g. \`nvm install ${REQUIRED_NODE_MAJOR}\`; \`bash .ci/run\` installs node@24 from the npm ` +
      `registry into .cache/node/) and run the command again.`,
  );
}

/** Resolves whether something accepts TCP connections at `host:port` within `timeoutMs`. */
export function answers(host, port, timeoutMs = 1_000) {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The major version `java -version` reports (`17`, from `openjdk version "17.0.9"`), or 0. */
export function javaMajor(java) {
  // It prints on stderr; a missing binary leaves `error` set (ENOENT).
  const result = spawnSync(java, ['-version'], { encoding: 'utf8' });
  return result.error ? 0 : parseJavaMajor(`${result.stdout}${result.stderr}`);
}

export function parseJavaMajor(text) {
  const m = /version "(\d+)(?:\.(\d+))?/.exec(text);
  if (!m) return 0;
  return m[1] === '1' ? Number(m[2]) : Number(m[1]);
}

function hasCommand(command, args) {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Where the broker comes from: KAFKA_BROKERS, the broker `npm run kafka:start` left running, or
 * one the command starts, which needs Java 17+ (and Maven until the jars are cached). Returns a
 * line saying which; throws SetupError naming what is missing.
 */
export async function checkBroker(root, env = process.env) {
  if (env.KAFKA_BROKERS) return `Kafka: KAFKA_BROKERS=${env.KAFKA_BROKERS}`;
  const stateFile = join(root, '.kafka', 'state.json');
  if (existsSync(stateFile)) {
    const brokers = JSON.parse(readFileSync(stateFile, 'utf8')).brokers ?? [];
    const [host, port] = String(brokers[0] ?? '').split(':');
    if (host && (await answers(host, Number(port))))
      return `Kafka: the broker of npm run kafka:start`;
  }
  const java = env.JAVA_HOME ? join(env.JAVA_HOME, 'bin', 'java') : 'java';
  const major = javaMajor(java);
  const howElse = 'or point KAFKA_BROKERS=host:port at a running broker';
  if (major < 17) {
    const found = major === 0 ? `no ${java} found` : `${java} is Java ${major}`;
    throw new SetupError(
      `No Kafka broker: KAFKA_BROKERS is not set and none from \`npm run kafka:start\` answers, ` +
        `so one is started here, which needs Java 17 or newer (${found}). Install a JDK 17+ ` +
        `(or set JAVA_HOME), ${howElse}.`,
    );
  }
  const version = resolveVersion();
  const cached = existsSync(join(CACHE_DIR, `kafka-${version}`, 'complete.json'));
  if (!cached && !hasCommand('mvn', ['-v'])) {
    throw new SetupError(
      `No Kafka broker: starting one needs Kafka ${version}'s jars, not yet in ${CACHE_DIR}, ` +
        `and Maven (mvn) to download them once from Maven Central, which is not on PATH. ` +
        `Install Maven, ${howElse}.`,
    );
  }
  return `Kafka: a broker started here (Java ${major}${cached ? '' : ', jars downloaded by Maven'})`;
}
