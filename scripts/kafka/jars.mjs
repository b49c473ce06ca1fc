// Gathers a runnable Apache Kafka broker from Maven Central (there is no Kafka package or
// tarball on these machines) and caches it, so a second start downloads nothing.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import {
  mkdir,
  readdir,
  readFile,
  rename,
  rm,
  writeFile,
} from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const POM = join(HERE, 'pom.xml');
const VERSIONS = JSON.parse(readFileSync(join(HERE, 'versions.json'), 'utf8'));

/** Outside the repo so fresh clones (CI) and worktrees share one download. */
export const CACHE_DIR =
  process.env.KAFKA_CACHE_DIR ||
  join(homedir(), '.cache', 'nest-kafka-broadcast');

/** The one place the Kafka version is chosen: argument, then env KAFKA_VERSION, then versions.json. */
export function resolveVersion(version) {
  return version || process.env.KAFKA_VERSION || VERSIONS.kafka;
}

/** 3 for the 3.9 line (reload4j logging), 4 for 4.x (log4j2 logging). */
export function kafkaLine(version) {
  return Number(version.split('.')[0]) >= 4 ? 4 : 3;
}

/** JVM flag that points the broker's logging at our config for this Kafka line. */
export function loggingFlag(version) {
  return kafkaLine(version) === 4
    ? `-Dlog4j2.configurationFile=${join(HERE, 'log4j2.xml')}`
    : `-Dlog4j.configuration=file:${join(HERE, 'log4j.properties')}`;
}

/** Returns the directory holding every runtime jar of Kafka `version`, downloading it once. */
export async function ensureJars(version, log = () => {}) {
  const home = join(CACHE_DIR, `kafka-${version}`);
  const libs = join(home, 'libs');
  const marker = join(home, 'complete.json');
  if (await isComplete(libs, marker)) return libs;

  log(`Downloading Kafka ${version} jars from Maven Central into ${libs} ...`);
  await mkdir(home, { recursive: true });
  // Download into a private folder and rename it into place: a crashed or concurrent
  // download never leaves a half-filled libs/ that looks usable.
  const tmp = `${libs}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  let jars;
  try {
    await copyDependencies(version, tmp);
    jars = await checkJars(version, tmp);
  } catch (error) {
    await rm(tmp, { recursive: true, force: true });
    throw error;
  }
  if (await isComplete(libs, marker)) {
    // A concurrent start finished first and may already run from libs/: keep its copy.
    await rm(tmp, { recursive: true, force: true });
    return libs;
  }
  await rm(libs, { recursive: true, force: true });
  await rename(tmp, libs);
  await writeFile(marker, JSON.stringify({ version, jars }, null, 2));
  return libs;
}

async function isComplete(libs, marker) {
  if (!existsSync(marker)) return false;
  try {
    const { jars } = JSON.parse(await readFile(marker, 'utf8'));
    return jars.length > 0 && jars.every((jar) => existsSync(join(libs, jar)));
  } catch {
    return false;
  }
}

async function copyDependencies(version, outDir) {
  const props = [
    `-Dkafka.version=${version}`,
    `-Dkafka.line=${kafkaLine(version)}`,
  ];
  if (kafkaLine(version) === 4)
    props.push(`-Dlog4j.version=${await resolvedLog4j(version)}`);
  await mvn([
    'dependency:copy-dependencies',
    '-DincludeScope=runtime',
    `-DoutputDirectory=${outDir}`,
    ...props,
  ]);
}

/** The slf4j binding must match the log4j-core that Kafka itself pulls in, so ask Maven first. */
async function resolvedLog4j(version) {
  const out = join(CACHE_DIR, `kafka-${version}`, 'dependency-list.txt');
  await mvn([
    'dependency:list',
    '-DincludeScope=runtime',
    `-DoutputFile=${out}`,
    `-Dkafka.version=${version}`,
  ]);
  const match = /org\.apache\.logging\.log4j:log4j-core:jar:([^:\s]+)/.exec(
    await readFile(out, 'utf8'),
  );
  // 4.0.0 resolves no log4j-core at all; the pom then adds core and binding at this version.
  return match ? match[1] : VERSIONS.log4jFallback;
}

async function checkJars(version, dir) {
  const jars = (await readdir(dir)).filter((name) => name.endsWith('.jar'));
  if (!jars.includes(`kafka_2.13-${version}.jar`)) {
    throw new Error(
      `Maven did not produce kafka_2.13-${version}.jar in ${dir}`,
    );
  }
  return jars;
}

function mvn(args) {
  return new Promise((resolve, reject) => {
    execFile(
      'mvn',
      ['-q', '-B', '-f', POM, ...args],
      { maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        reject(
          new Error(
            `mvn ${args[0]} failed (${error.message.split('\n')[0]})\n${stdout}${stderr}`.trim(),
          ),
        );
      },
    );
  });
}
