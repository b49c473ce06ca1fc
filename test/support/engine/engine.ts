// Helpers for tests that run real BroadcastEngines against the run's Kafka broker and the
// local PostgreSQL / MariaDB servers. Nothing here is mocked.
//
//   const h = useEngineHarness('broadcast');        // inside a test: cleans up when the test ends
//   const [a, b] = await h.startMany(2, { lock: 'postgres', topics: ['news'] });
//   await a.engine.publisher.publish('news', { n: 1 });
//   await waitFor(() => b.payloads('news').length === 1);
//
// Every engine gets its OWN DataSource (its own pool), as every production instance has, so a
// connection killed from the database side only affects that engine.
import { setTimeout as delay } from 'node:timers/promises';
import { Kafka, logLevel, type Admin, type ITopicConfig, type Producer } from 'kafkajs';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { onTestFailed, onTestFinished } from 'vitest';
import {
  type BroadcastHandler,
  type BroadcastMessage,
  type BroadcastModuleOptions,
  type BroadcastStatus,
} from 'nestjs-kafka-broadcast';
// The engine itself, not its public type: these tests read its parts' counters (heartbeat.sent).
import { BroadcastEngine } from '../../../libs/broadcast/src/engine/broadcast.engine.js';
import {
  DEFAULT_HEARTBEAT_TOPIC,
  DEFAULT_LOCK_FREE_GROUP_BASE,
  DEFAULT_LOCKED_GROUP_BASE,
} from '../../../libs/broadcast/src/core/options/broadcast.defaults.js';
import { CapturingLogger } from './capturing-logger.js';
import type { KafkaPort } from '../../../libs/broadcast/src/interfaces/kafka-port.interface.js';
import { describeGroupsOfEitherProtocol } from '../broker/consumer-groups.js';
import {
  clientScoped,
  groupProtocolOf,
  type BroadcastKafkaClient,
} from '../broker/kafka-clients.js';
import { createTopics, kafkaBrokers, testPrefix, waitFor } from '../broker/kafka.js';

export type LockKind = 'postgres' | 'mariadb' | 'none';
export { LockInspector } from './lock-inspector.js';

export const PG_OPTIONS = {
  type: 'postgres',
  host: '127.0.0.1',
  port: 5432,
  username: 'postgres',
  database: 'test',
} as const satisfies DataSourceOptions;

export const MARIADB_OPTIONS = {
  type: 'mariadb',
  host: '127.0.0.1',
  port: 3306,
  username: 'root',
  password: '',
  database: 'test',
} as const satisfies DataSourceOptions;

/** Short Kafka timings so that joins, leaves and expiries happen in test time. */
import { FAST_CONSUMER, LOCK_CHECK_INTERVAL_MS } from '../broker/fast-consumer.js';
export { FAST_CONSUMER, LOCK_CHECK_INTERVAL_MS };

/** A new, initialized DataSource (its own pool) for one engine or for the test itself. */
export async function openDataSource(
  kind: Exclude<LockKind, 'none'>,
  applicationName?: string,
): Promise<DataSource> {
  const options: DataSourceOptions =
    kind === 'postgres' ? { ...PG_OPTIONS, applicationName } : MARIADB_OPTIONS;
  return new DataSource(options).initialize();
}

// ---------------------------------------------------------------------------------------------
// Engines

export interface EngineSpec {
  lock: LockKind;
  /** Logical topics whose payloads are collected (a collecting handler is registered for each). */
  topics?: readonly string[];
  /** Registers more handlers, before the collectors (so the collectors run after them). */
  register?: (engine: BroadcastEngine) => void;
  /** Overrides of the harness defaults (kafka, topicPrefix and lock are set by the harness). */
  options?: Partial<Omit<BroadcastModuleOptions, 'kafka' | 'topicPrefix' | 'lock'>> & {
    lock?: { checkIntervalMs?: number };
  };
  name?: string;
  /** Kafka client options on top of the harness's brokers and client id (e.g. short timeouts). */
  kafka?: Partial<BroadcastModuleOptions['kafka']>;
  /** A DataSource other than the lock kind's (e.g. better-sqlite3); the engine picks its locks. */
  dataSource?: DataSourceOptions;
  /** Makes the engine's Kafka port (deps.kafka), e.g. to watch its consumers (counting-port.ts). */
  kafkaPort?: (options: BroadcastModuleOptions, logger: CapturingLogger) => KafkaPort;
}

export interface TestEngine {
  readonly name: string;
  readonly lockKind: LockKind;
  readonly engine: BroadcastEngine;
  readonly logger: CapturingLogger;
  readonly dataSource: DataSource | undefined;
  /** Payloads per logical topic, in arrival order. */
  readonly received: Map<string, unknown[]>;
  /** The whole messages per logical topic, with when each arrived (epoch ms). */
  readonly messages: Map<string, { message: BroadcastMessage; at: number }[]>;
  /** How long start() took, once it resolved. */
  readyMs: number | undefined;
  /** When start() resolved (epoch ms). */
  readyAt: number | undefined;
  payloads(topic: string): unknown[];
  status(): BroadcastStatus;
  /** Stops the engine and destroys its DataSource. Idempotent. */
  stop(): Promise<void>;
}

/**
 * One test's engines, clients and Kafka names, all under one unique prefix, and the cleanup
 * that removes them: engines stopped, DataSources destroyed, groups and topics deleted.
 */
export class EngineHarness {
  readonly prefix: string;
  readonly engines: TestEngine[] = [];
  /** Every engine ever created here, stopped or not, for the logs of a failed test. */
  private readonly allEngines: TestEngine[] = [];
  private readonly dataSources = new Set<DataSource>();
  private adminClient: Promise<Admin> | undefined;
  private producerClient: Promise<Producer> | undefined;
  private readonly cleanups: (() => Promise<unknown>)[] = [];
  private counter = 0;
  readonly startedAt = Date.now();

  readonly brokers: string[];

  constructor(
    readonly name: string,
    /** Defaults for every engine of this harness. */
    private readonly defaults: EngineSpec['options'] = {},
    /**
     * Another prefix than testPrefix(name), another broker than the run's shared one, the Kafka
     * client adapter the engines use (kafka.client; see kafka-clients.ts).
     */
    place: { prefix?: string; brokers?: string[]; client?: BroadcastKafkaClient } = {},
  ) {
    this.client = place.client;
    this.prefix = place.prefix ?? testPrefix(clientScoped(name, place.client));
    this.brokers = place.brokers ?? kafkaBrokers();
  }

  /** kafka.client of every engine started here (undefined: the library's default). */
  readonly client: BroadcastKafkaClient | undefined;

  private kafkaClient(clientId: string) {
    return new Kafka({ clientId, brokers: this.brokers, logLevel: logLevel.NOTHING });
  }

  private async connectedAdmin(): Promise<Admin> {
    const admin = this.kafkaClient(`${this.name}-admin`).admin();
    await admin.connect();
    return admin;
  }

  /** `<prefix><topic>`, the topic as it exists on the broker. */
  topic(logical: string): string {
    return this.prefix + logical;
  }

  get heartbeatTopic(): string {
    return this.prefix + DEFAULT_HEARTBEAT_TOPIC;
  }

  /** The consumer group of `id` in the given lock mode. */
  groupName(kind: LockKind, id: number): string {
    return `${this.prefix}${kind === 'none' ? DEFAULT_LOCK_FREE_GROUP_BASE : DEFAULT_LOCKED_GROUP_BASE}-${id}`;
  }

  /** The advisory-lock namespace the engines of this harness use (locked modes). */
  get lockNamespace(): string {
    return this.prefix + DEFAULT_LOCKED_GROUP_BASE;
  }

  admin(): Promise<Admin> {
    this.adminClient ??= this.connectedAdmin();
    return this.adminClient;
  }

  /** A connected raw kafkajs producer (for values the publisher refuses to write, or for speed). */
  producer(): Promise<Producer> {
    this.producerClient ??= (async () => {
      const producer = this.kafkaClient(`${this.name}-producer`).producer({
        allowAutoTopicCreation: false,
      });
      await producer.connect();
      return producer;
    })();
    return this.producerClient;
  }

  /** Sends raw values (strings, or null for a tombstone) to `<prefix><topic>`, acks = all. */
  async sendRaw(logicalTopic: string, values: (string | null)[]): Promise<void> {
    const producer = await this.producer();
    await producer.send({
      topic: this.topic(logicalTopic),
      acks: -1,
      messages: values.map((value) => ({ value })),
    });
  }

  /** Sends JSON payloads with the raw producer. */
  async sendJson(logicalTopic: string, payloads: unknown[]): Promise<void> {
    await this.sendRaw(
      logicalTopic,
      payloads.map((p) => JSON.stringify(p)),
    );
  }

  /** Creates the topics (the engine would too), e.g. to give them several partitions. */
  async createTopics(topics: { topic: string; numPartitions?: number }[]): Promise<void> {
    const admin = await this.admin();
    const configs: ITopicConfig[] = topics.map((t) => ({
      topic: this.topic(t.topic),
      numPartitions: t.numPartitions ?? 1,
    }));
    await createTopics(admin, configs);
  }

  /** Builds an engine (and its own DataSource) without starting it. */
  async create(spec: EngineSpec): Promise<TestEngine> {
    const name = spec.name ?? `e${this.counter++}`;
    const logger = new CapturingLogger(name);
    const dataSource = spec.dataSource
      ? await new DataSource(spec.dataSource).initialize()
      : spec.lock === 'none'
        ? undefined
        : await openDataSource(spec.lock, `${this.prefix}${name}`.slice(0, 63));
    if (dataSource) this.dataSources.add(dataSource);
    const { lock: lockOptions, ...rest } = {
      ...this.defaults,
      ...spec.options,
    };
    const options: BroadcastModuleOptions = {
      kafka: {
        brokers: this.brokers,
        clientId: `${this.name}-${name}`,
        ...(this.client && { client: this.client }),
        // BROADCAST_GROUP_PROTOCOL picks the @platformatic/kafka rows' group protocol.
        ...groupProtocolOf(this.client),
        ...spec.kafka,
      },
      topicPrefix: this.prefix,
      consumer: FAST_CONSUMER,
      heartbeat: false,
      instanceId: name,
      ...rest,
      lock:
        spec.lock === 'none' && !spec.dataSource
          ? false
          : {
              checkIntervalMs: lockOptions?.checkIntervalMs ?? LOCK_CHECK_INTERVAL_MS,
            },
    };
    const kafka = spec.kafkaPort?.(options, logger);
    const engine = new BroadcastEngine(options, { dataSource, logger, ...(kafka && { kafka }) });
    spec.register?.(engine);
    const received = new Map<string, unknown[]>();
    const messages = new Map<string, { message: BroadcastMessage; at: number }[]>();
    for (const topic of spec.topics ?? []) {
      const list: unknown[] = [];
      const whole: { message: BroadcastMessage; at: number }[] = [];
      received.set(topic, list);
      messages.set(topic, whole);
      engine.on(
        topic,
        (payload: unknown, message: BroadcastMessage) => {
          list.push(payload);
          whole.push({ message, at: Date.now() });
        },
        `collector(${name})`,
      );
    }
    let stopping: Promise<void> | undefined;
    const testEngine: TestEngine = {
      name,
      lockKind: spec.lock,
      engine,
      logger,
      dataSource,
      received,
      messages,
      readyMs: undefined,
      readyAt: undefined,
      payloads: (topic) => received.get(topic) ?? [],
      status: () => engine.reader.status(),
      stop: () =>
        (stopping ??= (async () => {
          try {
            await engine.stop();
          } finally {
            if (dataSource) {
              this.dataSources.delete(dataSource);
              if (dataSource.isInitialized) await dataSource.destroy();
            }
          }
        })()),
    };
    this.engines.push(testEngine);
    this.allEngines.push(testEngine);
    return testEngine;
  }

  /** Starts an engine and records how long start() took. Rejects as start() does. */
  async startEngine(testEngine: TestEngine): Promise<TestEngine> {
    const started = Date.now();
    await testEngine.engine.start();
    testEngine.readyAt = Date.now();
    testEngine.readyMs = testEngine.readyAt - started;
    return testEngine;
  }

  async start(spec: EngineSpec): Promise<TestEngine> {
    return this.startEngine(await this.create(spec));
  }

  /** Creates `count` engines, then starts them all at once. */
  async startMany(count: number, spec: EngineSpec): Promise<TestEngine[]> {
    const created = await Promise.all(
      Array.from({ length: count }, () => this.create({ ...spec, name: undefined })),
    );
    return Promise.all(created.map((e) => this.startEngine(e)));
  }

  /** Waits until every engine reports `ready` (a start() that resolved may already be recovering). */
  async allReady(engines: readonly TestEngine[], timeoutMs = 30_000): Promise<void> {
    await waitFor(() => engines.every((e) => e.status().state === 'ready'), {
      timeoutMs,
      message: `engines not all ready: ${engines.map((e) => `${e.name}=${e.status().state}`).join(', ')}`,
    });
  }

  /** Stops one engine and forgets it. */
  async stopEngine(testEngine: TestEngine): Promise<void> {
    await testEngine.stop();
    const index = this.engines.indexOf(testEngine);
    if (index >= 0) this.engines.splice(index, 1);
  }

  /** Consumer groups on the broker whose name starts with this harness's prefix. */
  async listGroups(): Promise<string[]> {
    const admin = await this.admin();
    const { groups } = await admin.listGroups();
    return groups
      .map((g) => g.groupId)
      .filter((g) => g.startsWith(this.prefix))
      .sort();
  }

  /** Member ids per group. */
  async members(groupIds: readonly string[]): Promise<Map<string, string[]>> {
    const views = await describeGroupsOfEitherProtocol(await this.admin(), groupIds, {
      brokers: this.brokers,
    });
    return new Map([...views].map(([groupId, view]) => [groupId, view.memberIds]));
  }

  /** Sum of the high watermarks of a topic's partitions: the number of records ever written. */
  async topicEnd(fullTopic: string): Promise<number> {
    const admin = await this.admin();
    const offsets = await admin.fetchTopicOffsets(fullTopic);
    return offsets.reduce((sum, p) => sum + Number(p.high), 0);
  }

  /** Runs `fn` during cleanup, before engines are stopped (e.g. to release a test-held lock). */
  onCleanup(fn: () => Promise<unknown>): void {
    this.cleanups.push(fn);
  }

  /** All log lines of all engines, in time order. */
  dumpLogs(): string {
    return this.allEngines
      .flatMap((e) => e.logger.lines.map((l) => ({ ...l, label: e.name })))
      .sort((a, b) => a.at - b.at)
      .map(
        (l) =>
          `${new Date(l.at).toISOString().slice(11, 23)} ${l.label} ${l.level.toUpperCase()} ${l.message}`,
      )
      .join('\n');
  }

  /**
   * Stops every engine, destroys every DataSource, then deletes this prefix's groups and topics.
   * Throws when a group cannot be deleted because it still has members: a leaked consumer.
   */
  async cleanup(): Promise<void> {
    const problems: string[] = [];
    for (const fn of this.cleanups.splice(0).reverse()) {
      await fn().catch((error: unknown) => problems.push(`cleanup step: ${String(error)}`));
    }
    const stops = await Promise.allSettled(this.engines.splice(0).map((e) => e.stop()));
    for (const s of stops)
      if (s.status === 'rejected') problems.push(`engine stop: ${String(s.reason)}`);
    await Promise.allSettled(
      [...this.dataSources].map((ds) => (ds.isInitialized ? ds.destroy() : undefined)),
    );
    this.dataSources.clear();
    const producer = this.producerClient;
    this.producerClient = undefined;
    await producer?.then((p) => p.disconnect()).catch(() => undefined);
    if (this.adminClient) {
      const admin = await this.adminClient;
      try {
        await this.deleteGroups(admin, problems);
        const topics = (await admin.listTopics()).filter((t) => t.startsWith(this.prefix));
        if (topics.length > 0) await admin.deleteTopics({ topics, timeout: 30_000 });
      } catch (error) {
        problems.push(`deleting groups/topics: ${String(error)}`);
      } finally {
        this.adminClient = undefined;
        await admin.disconnect();
      }
    } else {
      // Engines may have created topics and groups even if the test never asked for an admin.
      const admin = await this.connectedAdmin();
      try {
        await this.deleteGroups(admin, problems);
        const topics = (await admin.listTopics()).filter((t) => t.startsWith(this.prefix));
        if (topics.length > 0) await admin.deleteTopics({ topics, timeout: 30_000 });
      } finally {
        await admin.disconnect();
      }
    }
    if (problems.length > 0)
      throw new Error(`cleanup of ${this.prefix} failed:\n${problems.join('\n')}`);
  }

  private async deleteGroups(admin: Admin, problems: string[]): Promise<void> {
    // A stopped engine has left its group; a group that stays non-empty is a leaked member.
    const list = async () =>
      (await admin.listGroups()).groups
        .map((g) => g.groupId)
        .filter((g) => g.startsWith(this.prefix));
    let remaining = await list();
    const deadline = Date.now() + 10_000;
    while (remaining.length > 0) {
      const failed: string[] = [];
      for (const groupId of remaining) {
        try {
          await admin.deleteGroups([groupId]);
        } catch (error) {
          const code = (error as { groups?: { errorCode: number }[] }).groups?.[0]?.errorCode;
          if (code !== 69) failed.push(`${groupId} (${String(error)})`); // 69: GROUP_ID_NOT_FOUND
        }
      }
      if (failed.length === 0) return;
      if (Date.now() > deadline) {
        problems.push(`groups not deletable (members left behind?): ${failed.join(', ')}`);
        return;
      }
      await delay(250);
      remaining = await list();
    }
  }
}

/**
 * Creates a harness for the current test: its cleanup runs when the test finishes (pass or
 * fail), and the engines' logs are printed when the test fails.
 */
export function useEngineHarness(
  name: string,
  defaults?: EngineSpec['options'],
  client?: BroadcastKafkaClient,
): EngineHarness {
  const harness = new EngineHarness(name, defaults, { client });
  onTestFailed(() => {
    console.log(`---- engine logs of ${harness.prefix} ----\n${harness.dumpLogs()}`);
  });
  onTestFinished(() => harness.cleanup());
  return harness;
}

// ---------------------------------------------------------------------------------------------
// Database-side lock inspection and interference

/** Records every distinct state an engine goes through, polling every `intervalMs`. */
export function watchStates(testEngine: TestEngine, intervalMs = 20) {
  const states: {
    state: string;
    lockId: number | undefined;
    groupId: string | undefined;
    at: number;
  }[] = [];
  const record = () => {
    const { state, lockId, groupId } = testEngine.status();
    const last = states[states.length - 1];
    if (!last || last.state !== state || last.lockId !== lockId || last.groupId !== groupId) {
      states.push({ state, lockId, groupId, at: Date.now() });
    }
  };
  record();
  const timer = setInterval(record, intervalMs);
  return {
    states,
    stop() {
      clearInterval(timer);
      record();
      return states;
    },
  };
}

/** Handlers that fail in every way a handler can. */
export const failingHandlers = {
  throwsSync: (() => {
    throw new Error('handler threw synchronously');
  }) as BroadcastHandler,
  rejects: (async () => {
    throw new Error('handler rejected');
  }) as BroadcastHandler,
};
