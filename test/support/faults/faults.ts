// Helpers shared by the fault tests (test/faults-*.spec.ts): the built library for child
// processes, Kafka inspection (groups, members, the group coordinator), a raw publisher, and
// the RELIABILITY figures each scenario records.
import { EngineHarness } from '../engine/engine.js';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import kafkajs, { type Admin, type Kafka, type Producer } from 'kafkajs';
import { REPO_ROOT } from '../../../scripts/kafka-cluster.mjs';
import { copyLibAssets } from '../../../scripts/lib-assets.mjs';
import { kafkaBrokers, runId, waitFor } from '../broker/kafka.js';
import {
  consumerGroupView,
  describeGroupsOfEitherProtocol,
  type GroupView,
} from '../broker/consumer-groups.js';
import type { BroadcastKafkaClient } from '../broker/kafka-clients.js';

const { Kafka: KafkaClient, logLevel } = kafkajs;

/** Fault-test timings (the brief's): short sessions so a crashed member expires in test time. */
import { FAST_CONSUMER, LOCK_CHECK_INTERVAL_MS } from '../broker/fast-consumer.js';
export { FAST_CONSUMER, LOCK_CHECK_INTERVAL_MS };

/** EngineHarness defaults of the in-process fault scenarios. */
export const FAULT_ENGINE_DEFAULTS = {
  consumer: FAST_CONSUMER,
  heartbeat: false,
  lock: { checkIntervalMs: LOCK_CHECK_INTERVAL_MS },
} as const;

/** An EngineHarness for one fault scenario: its prefix, its broker, the fault defaults. */
export function faultEngines(
  prefix: string,
  brokers: string[],
  client?: BroadcastKafkaClient,
): EngineHarness {
  return new EngineHarness(prefix, FAULT_ENGINE_DEFAULTS, { prefix, brokers, client });
}

// ---------------------------------------------------------------------------------------------
// The built library for child processes

function newestMtime(dir: string, accept: (file: string) => boolean): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path, accept));
    else if (accept(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Builds the library for child processes and returns its entry (a file URL), also exported as
 * env BROADCAST_LIB, which test/support/faults/instance.mjs imports instead of 'nestjs-kafka-broadcast'.
 *
 * It compiles libs/broadcast/src exactly as `npm run build:lib` does (same tsconfig), but into a
 * private directory per source version, test/.results/lib/<version>/dist, instead of the shared
 * libs/broadcast/dist: other runs rebuild that one at any moment, and a child process that
 * imports a half-written dist dies with a SyntaxError. The private build sits inside the repo,
 * so its bare imports (kafkajs, typeorm, @nestjs/*) resolve to the root node_modules.
 */
export function ensureLibBuilt(): string {
  const src = join(REPO_ROOT, 'libs/broadcast/src');
  const version = Math.floor(
    newestMtime(src, (f) => (f.endsWith('.ts') && !f.endsWith('.spec.ts')) || f.endsWith('.cjs')),
  ).toString(36);
  const libs = join(REPO_ROOT, 'test/.results/lib');
  const dir = join(libs, version);
  const entry = join(dir, 'dist/index.js');
  if (!existsSync(join(dir, 'complete'))) {
    const building = join(libs, `${version}.${process.pid}.tmp`);
    rmSync(building, { recursive: true, force: true });
    mkdirSync(building, { recursive: true });
    // "type": "module" and the package name, as in the real package.
    writeFileSync(
      join(building, 'package.json'),
      readFileSync(join(REPO_ROOT, 'libs/broadcast/package.json')),
    );
    execFileSync(
      process.execPath,
      [
        join(REPO_ROOT, 'node_modules/typescript/bin/tsc'),
        '-p',
        'libs/broadcast/tsconfig.lib.json',
        '--outDir',
        join(building, 'dist'),
      ],
      { cwd: REPO_ROOT, stdio: 'pipe', timeout: 300_000 },
    );
    // What tsc does not emit (the confluent adapter's helper script), as the package's build.
    copyLibAssets([join(building, 'dist')]);
    writeFileSync(join(building, 'complete'), new Date().toISOString());
    // Two workers of one run may build the same version at once: the first to finish wins, and
    // the other keeps its hands off that build (child processes may already be running from it).
    if (existsSync(join(dir, 'complete'))) rmSync(building, { recursive: true, force: true });
    else {
      rmSync(dir, { recursive: true, force: true });
      renameSync(building, dir);
    }
    // Earlier versions: no child process of this run uses them (another worker's build of this
    // version, `<version>.<pid>.tmp`, is left to it).
    for (const old of readdirSync(libs))
      if (old !== version && !old.startsWith(`${version}.`))
        rmSync(join(libs, old), { recursive: true, force: true });
  }
  const url = pathToFileURL(entry).href;
  process.env.BROADCAST_LIB = url;
  return url;
}

// ---------------------------------------------------------------------------------------------
// Kafka clients and inspection

export function kafkaFor(brokers: string[], clientId = `faults-${runId()}`): Kafka {
  return new KafkaClient({
    clientId,
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3_000,
    requestTimeout: 10_000,
    retry: { retries: 8, initialRetryTime: 200, maxRetryTime: 3_000 },
  });
}

export async function connectedAdmin(brokers: string[]): Promise<Admin> {
  const admin = kafkaFor(brokers).admin();
  await admin.connect();
  return admin;
}

/** A producer that waits for every in-sync replica (acks = all) and retries through elections. */
export async function connectedProducer(brokers: string[]): Promise<Producer> {
  const producer = kafkaFor(brokers, `faults-producer-${runId()}`).producer({
    allowAutoTopicCreation: false,
    retry: { retries: 15, initialRetryTime: 200, maxRetryTime: 3_000 },
  });
  await producer.connect();
  return producer;
}

/** Sends JSON payloads (acks = all), optionally to one partition. */
export async function publishJson(
  producer: Producer,
  fullTopic: string,
  payloads: unknown[],
  partition?: number,
): Promise<void> {
  await producer.send({
    topic: fullTopic,
    acks: -1,
    messages: payloads.map((p) => ({
      value: JSON.stringify(p),
      ...(partition === undefined ? {} : { partition }),
    })),
  });
}

/** Consumer groups on the broker whose name starts with `prefix`, sorted. */
export async function prefixGroups(admin: Admin, prefix: string): Promise<string[]> {
  const { groups } = await admin.listGroups();
  return groups
    .map((g) => g.groupId)
    .filter((g) => g.startsWith(prefix))
    .sort();
}

export type { GroupView } from '../broker/consumer-groups.js';

/**
 * A group's state and member ids, of either protocol. `brokers`: the cluster `admin` talks to
 * (ConsumerGroupDescribe goes through a client of its own), the test broker unless given.
 */
export async function describe1(
  admin: Admin,
  groupId: string,
  brokers: readonly string[] = kafkaBrokers(),
): Promise<GroupView> {
  return (await describeGroupsOfEitherProtocol(admin, [groupId], { brokers })).get(groupId)!;
}

/**
 * How long a crashed member of `groupId` stays in it: the client's session timeout
 * (FAST_CONSUMER's) in a classic group; in a KIP-848 group the broker's
 * group.consumer.session.timeout.ms (45 s by default, 6 s on scripts/kafka's test brokers), which
 * no client option changes.
 */
export async function deadMemberSessionMs(
  admin: Admin,
  groupId: string,
  brokers: readonly string[] = kafkaBrokers(),
): Promise<number> {
  const { groups } = await admin.describeGroups([groupId]);
  const classic = groups.some((g) => g.groupId === groupId && g.state !== 'Dead');
  if (classic || !(await consumerGroupView(brokers, groupId)))
    return FAST_CONSUMER.sessionTimeoutMs;
  return brokerConsumerSessionMs(admin);
}

/** The broker's group.consumer.session.timeout.ms: how long a crashed KIP-848 member stays. */
export async function brokerConsumerSessionMs(admin: Admin): Promise<number> {
  const { brokers } = await admin.describeCluster();
  const name = 'group.consumer.session.timeout.ms';
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [
      {
        type: kafkajs.ConfigResourceTypes.BROKER,
        name: String(brokers[0]!.nodeId),
        configNames: [name],
      },
    ],
  });
  const value = resources[0]?.configEntries.find((e) => e.configName === name)?.configValue;
  if (!value) throw new Error(`the broker did not say its ${name}`);
  return Number(value);
}

/** The margin a wait for a crashed member's expiry gets on top of its session timeout. */
const EXPIRY_MARGIN_MS = 24_000;

/**
 * Polls until the group has no member (Empty or Dead): a crashed member's session ran out.
 * Deadline: the member's session (deadMemberSessionMs) plus a margin, unless given.
 */
export async function waitGroupEmpty(
  admin: Admin,
  groupId: string,
  timeoutMs?: number,
): Promise<number> {
  timeoutMs ??= (await deadMemberSessionMs(admin, groupId)) + EXPIRY_MARGIN_MS;
  const started = Date.now();
  await waitFor(async () => (await describe1(admin, groupId)).memberIds.length === 0, {
    timeoutMs,
    intervalMs: 100,
    message: `${groupId} never became empty`,
  });
  return Date.now() - started;
}

/** Polls until none of `memberIds` is a member of the group any more (their sessions ran out). */
export async function waitMembersGone(
  admin: Admin,
  groupId: string,
  memberIds: readonly string[],
  timeoutMs?: number,
): Promise<number> {
  timeoutMs ??= (await deadMemberSessionMs(admin, groupId)) + EXPIRY_MARGIN_MS;
  const started = Date.now();
  await waitFor(
    async () => !(await describe1(admin, groupId)).memberIds.some((m) => memberIds.includes(m)),
    {
      timeoutMs,
      intervalMs: 100,
      message: `member(s) ${memberIds.join(', ')} of ${groupId} never expired`,
    },
  );
  return Date.now() - started;
}

/**
 * Deletes every group and topic under `prefix` (best effort). Groups that still have members
 * (a killed process's, until its session runs out) are retried for up to `membersGraceMs`.
 */
export async function deletePrefix(
  admin: Admin,
  prefix: string,
  membersGraceMs = 15_000,
): Promise<string[]> {
  let problems: string[] = [];
  const deadline = Date.now() + membersGraceMs;
  let remaining = await prefixGroups(admin, prefix).catch(() => [] as string[]);
  while (remaining.length > 0) {
    const nonEmpty: string[] = [];
    problems = [];
    for (const groupId of remaining) {
      try {
        await admin.deleteGroups([groupId]);
      } catch (error) {
        const code = (error as { groups?: { errorCode: number }[] }).groups?.[0]?.errorCode;
        if (code === 68)
          nonEmpty.push(groupId); // NON_EMPTY_GROUP
        else if (code !== 69) problems.push(`${groupId}: ${String(error)}`); // 69: GROUP_ID_NOT_FOUND
      }
    }
    if (nonEmpty.length === 0 || Date.now() > deadline) {
      problems.push(...nonEmpty.map((g) => `${g}: still has members`));
      break;
    }
    remaining = nonEmpty;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const topics = (await admin.listTopics().catch(() => [] as string[])).filter((t) =>
    t.startsWith(prefix),
  );
  if (topics.length > 0)
    await admin
      .deleteTopics({ topics, timeout: 30_000 })
      .catch((e: unknown) => problems.push(String(e)));
  return problems;
}

/**
 * The node id of the broker coordinating `groupId`, by a real FindCoordinator request.
 *
 * kafkajs's admin has no public API for it; its Cluster class does (`findGroupCoordinatorMetadata`).
 * The Kafka object keeps a factory for Clusters under the private symbol
 * 'private:Kafka:createCluster' (node_modules/kafkajs/src/index.js); we build a throwaway
 * Cluster with it, connect, refresh its metadata, ask, and disconnect.
 */
export async function findCoordinator(brokers: string[], groupId: string): Promise<number> {
  const kafka = kafkaFor(brokers, `faults-coordinator-${runId()}`);
  const symbol = Object.getOwnPropertySymbols(kafka).find(
    (s) => s.description === 'private:Kafka:createCluster',
  );
  if (!symbol) throw new Error('kafkajs internals changed: no private:Kafka:createCluster');
  const createCluster = (kafka as unknown as Record<symbol, (o: object) => KafkajsCluster>)[
    symbol
  ]!;
  const cluster = createCluster({});
  await cluster.connect();
  try {
    await cluster.refreshMetadata(); // fills the broker pool that FindCoordinator is sent through
    const { coordinator } = await cluster.findGroupCoordinatorMetadata({
      groupId,
      coordinatorType: 0,
    });
    return coordinator.nodeId;
  } finally {
    await cluster.disconnect();
  }
}

interface KafkajsCluster {
  connect(): Promise<void>;
  refreshMetadata(): Promise<void>;
  disconnect(): Promise<void>;
  findGroupCoordinatorMetadata(o: { groupId: string; coordinatorType: number }): Promise<{
    coordinator: { nodeId: number; host: string; port: number };
  }>;
}

/** The leader of __consumer_offsets partition 0: the coordinator of every group when that topic has one partition. */
export async function offsetsTopicLeader(admin: Admin): Promise<number> {
  const { topics } = await admin.fetchTopicMetadata({
    topics: ['__consumer_offsets'],
  });
  const partitions = topics[0]?.partitions ?? [];
  if (partitions.length !== 1)
    throw new Error(`__consumer_offsets has ${partitions.length} partitions, expected 1`);
  return partitions[0]!.leader;
}

// ---------------------------------------------------------------------------------------------
// Figures

export interface ReliabilityFigures {
  scenario: string;
  instances: number;
  crashes?: number;
  outageMs?: number;
  sent: number;
  received: number;
  lost: number;
  groupsBefore?: number | string[];
  groupsAfter?: number | string[];
  recoverMs?: number | null;
  durationMs?: number;
  [detail: string]: unknown;
}

export const RESULTS_DIR = join(REPO_ROOT, 'test/.results/reliability');

/** Prints `RELIABILITY {...}` and writes test/.results/reliability/<scenario>.json. */
export function recordReliability(figures: ReliabilityFigures): void {
  const line = { ...figures, recordedAt: new Date().toISOString() };
  console.log(`RELIABILITY ${JSON.stringify(line)}`);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = figures.scenario.replace(/[^a-zA-Z0-9._-]+/g, '-');
  writeFileSync(join(RESULTS_DIR, `${file}.json`), `${JSON.stringify(line, null, 2)}\n`);
}

/**
 * Delivery bookkeeping for "every instance receives every message": for each receiver, the
 * messages it should have (sent while it was ready) minus what it got.
 */
export function deliveryReport(
  expected: Map<string, readonly unknown[]>,
  got: Map<string, readonly unknown[]>,
) {
  let sent = 0;
  let received = 0;
  let duplicates = 0;
  const missing: Record<string, unknown[]> = {};
  for (const [who, want] of expected) {
    const have = (got.get(who) ?? []).map((p) => JSON.stringify(p));
    const haveSet = new Set(have);
    duplicates += have.length - haveSet.size;
    sent += want.length;
    const lost = want.filter((p) => !haveSet.has(JSON.stringify(p)));
    received += want.length - lost.length;
    if (lost.length > 0) missing[who] = lost;
  }
  return { sent, received, lost: sent - received, duplicates, missing };
}

// ---------------------------------------------------------------------------------------------
// The database side of the advisory locks (a test-owned connection, not an instance's)
