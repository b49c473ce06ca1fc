// A real Apache Kafka cluster (KRaft, every node broker + controller) on 127.0.0.1, built from
// Maven Central jars. Used by the tests (test/global-setup.ts), the CLI (scripts/kafka.mjs),
// the demo and the benchmarks.
//
//   const cluster = await startCluster({ nodes: 3 });
//   cluster.bootstrap                   // '127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3'
//   await cluster.killNode(2); await cluster.startNode(2);
//   await cluster.stop();               // stops every JVM, removes the data dir
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { freePorts, newClusterId, serverProperties } from './kafka/config.mjs';
import { classDataArchive, classDataFlags, lockClassData } from './kafka/class-data.mjs';
import { ensureJars, kafkaLine, loggingFlag, resolveVersion } from './kafka/jars.mjs';
import {
  hasExited,
  jvmFlags,
  killChild,
  launchBroker,
  logTail,
  runTool,
  terminateChild,
} from './kafka/process.mjs';

export { resolveVersion } from './kafka/jars.mjs';

const HOST = '127.0.0.1';
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the CLI keeps its detached broker: state.json plus the cluster's data dir. */
export const STATE_DIR = join(REPO_ROOT, '.kafka');
export const STATE_FILE = join(STATE_DIR, 'state.json');

const START_TIMEOUT_MS = Number(process.env.KAFKA_START_TIMEOUT_MS) || 90_000;

/**
 * Formats and starts `nodes` KRaft nodes; resolves once every broker is registered.
 * `dir` defaults to a fresh temp dir. `detached` (CLI only) lets the JVMs outlive this process.
 * `extraPorts` reserves that many more free ports per node (`node.extraPorts`), e.g. for another
 * listener; `properties(node, nodes)` returns server properties that override the defaults.
 * `formatArgs` are appended to `StorageTool format` (e.g. `--add-scram`, see scripts/kafka/security.mjs).
 * `jvmOptions` are added to every broker's JVM flags; with them the class-data archive is neither
 * made nor mapped (ensureClassData's own broker, which makes it).
 */
export async function startCluster({
  nodes = 1,
  dir,
  version,
  quiet = false,
  detached = false,
  timeoutMs = START_TIMEOUT_MS,
  extraPorts = 0,
  properties,
  formatArgs = [],
  jvmOptions,
} = {}) {
  version = resolveVersion(version);
  const log = quiet ? () => {} : (msg) => process.stderr.write(`[kafka] ${msg}\n`);
  const startedAt = Date.now();
  const libs = await ensureJars(version, log);
  if (!jvmOptions) await ensureClassData(libs, version, log);
  dir = resolve(dir ?? (await mkdtemp(join(tmpdir(), 'kafka-cluster-'))));
  const members = await planNodes(nodes, dir, kafkaLine(version), extraPorts, properties);
  await formatStorage(members, libs, version, formatArgs);

  const flags = jvmFlags({
    heap: nodes > 1 ? '384m' : '512m',
    logging: loggingFlag(version),
    extra: jvmOptions ?? classDataFlags(libs),
  });
  const launch = (m) => {
    m.child = launchBroker({
      libs,
      flags,
      config: m.config,
      logFile: m.logFile,
      detached,
    });
  };
  members.forEach(launch);
  try {
    await waitReady(members, members, timeoutMs);
  } catch (error) {
    await Promise.all(members.map((m) => killChild(m.child)));
    throw error;
  }
  log(
    `Kafka ${version}: ${nodes} node(s) ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s at ${addresses(members)}`,
  );
  return clusterHandle({ members, dir, version, launch, timeoutMs });
}

/**
 * Makes the Kafka JVMs' class-data archive (scripts/kafka/class-data.mjs) when this machine has
 * none for these jars and this Java: a throwaway single broker started with
 * -XX:ArchiveClassesAtExit and stopped once ready (about 10 s, once). Meanwhile another process's
 * starts go without it; a failure only costs the archive.
 */
async function ensureClassData(libs, version, log) {
  const archive = classDataArchive(libs);
  if (!archive || existsSync(archive)) return;
  const release = lockClassData(archive);
  if (!release) return;
  const partial = `${archive}.${process.pid}.partial`;
  try {
    const started = Date.now();
    const cluster = await startCluster({
      version,
      quiet: true,
      jvmOptions: [`-XX:ArchiveClassesAtExit=${partial}`],
    });
    // A clean exit writes the archive (SIGTERM: Kafka's shutdown hook, then the JVM's dump).
    await cluster.stop();
    if (existsSync(partial)) {
      await rename(partial, archive);
      log(`class-data archive made in ${((Date.now() - started) / 1000).toFixed(1)} s: ${archive}`);
    }
  } catch (error) {
    log(`no class-data archive (Kafka JVMs start without it): ${error.message.split('\n')[0]}`);
  } finally {
    await rm(partial, { force: true });
    release();
  }
}

async function planNodes(count, dir, line, extraPorts, properties) {
  const perNode = 2 + extraPorts;
  const ports = await freePorts(count * perNode);
  const members = Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    port: ports[perNode * i],
    controllerPort: ports[perNode * i + 1],
    extraPorts: ports.slice(perNode * i + 2, perNode * (i + 1)),
    config: join(dir, `node-${i + 1}`, 'server.properties'),
    logFile: join(dir, `node-${i + 1}.log`),
    child: null,
  }));
  for (const m of members) {
    const dataDir = join(dirname(m.config), 'data');
    await mkdir(dataDir, { recursive: true });
    await writeFile(
      m.config,
      serverProperties({
        node: m,
        nodes: members,
        dataDir,
        line,
        overrides: properties?.(m, members),
      }),
    );
  }
  return members;
}

/** Every node's storage gets the same cluster id; formats run in parallel JVMs. */
async function formatStorage(members, libs, version, extraArgs) {
  const clusterId = newClusterId();
  const flags = [
    '-Xmx256m',
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    loggingFlag(version),
    ...classDataFlags(libs),
  ];
  await Promise.all(
    members.map((m) =>
      runTool({
        libs,
        flags,
        main: 'kafka.tools.StorageTool',
        args: ['format', '-t', clusterId, '-c', m.config, '--ignore-formatted', ...extraArgs],
      }),
    ),
  );
}

function clusterHandle({ members, dir, version, launch, timeoutMs }) {
  const node = (id) => {
    const m = members.find((x) => x.id === id);
    if (!m) throw new Error(`no Kafka node ${id} (nodes: ${members.map((x) => x.id).join(', ')})`);
    return m;
  };
  const brokers = members.map(address);
  return {
    version,
    dir,
    brokers,
    bootstrap: brokers.join(','),
    get nodes() {
      return members.map(({ id, port, controllerPort, extraPorts, child, config, logFile }) => ({
        id,
        port,
        controllerPort,
        extraPorts,
        pid: child?.pid,
        config,
        logFile,
      }));
    },
    /** Graceful: SIGTERM, Kafka's controlled shutdown, SIGKILL after 30 s. */
    stopNode: (id) => terminateChild(node(id).child, 30_000),
    /** A crash: SIGKILL, no controlled shutdown. */
    killNode: (id) => killChild(node(id).child),
    /** Restarts a stopped node with the same data dir and ports; resolves when it answers. */
    async startNode(id) {
      const m = node(id);
      if (m.child && !hasExited(m.child)) return;
      launch(m);
      await waitReady([m], [m], timeoutMs);
    },
    /** Stops every node (in parallel) and removes `dir` unless `keepDir`. */
    async stop({ keepDir = false } = {}) {
      await Promise.all(members.map((m) => terminateChild(m.child, 15_000)));
      if (!keepDir) await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Polls describeCluster() on `via` until every node of `expected` is listed. */
async function waitReady(via, expected, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    const dead = expected.find((m) => m.child && hasExited(m.child));
    if (dead)
      throw startError(
        `Kafka node ${dead.id} exited (code ${dead.child.exitCode}, signal ${dead.child.signalCode})`,
        dead,
      );
    try {
      const { brokers } = await describeCluster(via.map(address));
      const missing = expected.filter((m) => !brokers.some((b) => b.nodeId === m.id));
      if (missing.length === 0) return;
      last = `node(s) ${missing.map((m) => m.id).join(', ')} not registered yet`;
    } catch (error) {
      last = error.message;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw startError(`Kafka not ready within ${timeoutMs} ms: ${last}`, ...expected);
}

function startError(message, ...members) {
  const tails = members.map((m) => `--- ${m.logFile} (last lines) ---\n${logTail(m.logFile)}`);
  return new Error([message, ...tails].join('\n'));
}

/** One admin round trip with short timeouts and no kafkajs retries (callers poll). */
export async function describeCluster(brokers) {
  const kafka = new Kafka({
    clientId: 'kafka-cluster-probe',
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1000,
    requestTimeout: 3000,
    retry: { retries: 0 },
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    return await admin.describeCluster();
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

/** True when `brokers` answer describeCluster within one short attempt. */
export async function clusterAnswers(brokers) {
  try {
    await describeCluster(brokers);
    return true;
  } catch {
    return false;
  }
}

/** The CLI's state ({ brokers, nodes, dir, version, ... }) or null. */
export async function readState() {
  if (!existsSync(STATE_FILE)) return null;
  try {
    return JSON.parse(await readFile(STATE_FILE, 'utf8'));
  } catch {
    return null;
  }
}

function address(m) {
  return `${HOST}:${m.port}`;
}

function addresses(members) {
  return members.map(address).join(',');
}
