// Helpers for tests that run whole Nest applications with BroadcastModule against the run's
// real Kafka broker and the local PostgreSQL server. Nothing here is mocked.
//
//   const h = useNestHarness('three-apps');     // inside a test: cleans up when the test ends
//   const app = await h.start({ imports: [postgresRoot(), BroadcastModule.forRoot(h.options())], providers: [Svc] });
//   await app.get(BroadcastPublisher).publish('news', { n: 1 });
//
// Every app gets its OWN TypeORM DataSource (TypeOrmModule.forRoot in its module), as every
// production instance has; app.close() destroys it. Cleanup closes every app the harness made,
// then deletes the topics and consumer groups under the harness's prefix.
import {
  ConsoleLogger,
  Logger,
  type DynamicModule,
  type INestApplication,
  type LoggerService,
  type LogLevel,
  type ModuleMetadata,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AssignerProtocol, Kafka, logLevel, type Admin } from 'kafkajs';
import pg from 'pg';
import { onTestFinished } from 'vitest';
import { type BroadcastModuleOptions } from 'nestjs-kafka-broadcast';
import { BroadcastTransport } from 'nestjs-kafka-broadcast/microservices';
import { consumerGroupView } from '../broker/consumer-groups.js';
import {
  clientScoped,
  groupProtocolOf,
  type BroadcastKafkaClient,
} from '../broker/kafka-clients.js';
import { kafkaBrokers, runId, testPrefix } from '../broker/kafka.js';

export const PG_CONNECTION = {
  type: 'postgres',
  host: '127.0.0.1',
  port: 5432,
  username: 'postgres',
  database: 'test',
} as const;

/** Short Kafka timings so that joins, leaves and expiries happen in test time. */
import { FAST_CONSUMER } from '../broker/fast-consumer.js';
export { FAST_CONSUMER };

/** Nest's own log lines that tests keep: problems only. */
const QUIET_LEVELS: LogLevel[] = ['error', 'warn'];

/** A console logger printing warnings and errors only; installed as Nest's global logger. */
export function quietLogger(): ConsoleLogger {
  return new ConsoleLogger({ logLevels: QUIET_LEVELS });
}

/**
 * `TypeOrmModule.forRoot` for the local PostgreSQL: a new DataSource (own pool) per app.
 * `applicationName` shows up in pg_stat_activity, so a test can tell whose connection holds a lock.
 */
export function postgresRoot(
  extra: { name?: string; applicationName?: string } = {},
): DynamicModule {
  return TypeOrmModule.forRoot({
    ...PG_CONNECTION,
    retryAttempts: 0,
    ...extra,
  });
}

/** A unique PostgreSQL application_name for this run. */
export function appName(label: string): string {
  return `bt.${runId()}.${label}`.slice(0, 63);
}

// ---------------------------------------------------------------------------------------------
// Logs

export { CapturingLogger, type LogLine } from '../engine/capturing-logger.js';

// ---------------------------------------------------------------------------------------------
// PostgreSQL inspection

/** A plain pg client of the test itself (not an app's pool); the caller ends it. */
export async function pgClient(applicationName = appName('probe')): Promise<pg.Client> {
  const client = new pg.Client({
    host: PG_CONNECTION.host,
    port: PG_CONNECTION.port,
    user: PG_CONNECTION.username,
    database: PG_CONNECTION.database,
    application_name: applicationName,
  });
  await client.connect();
  return client;
}

export { heldLocks, lockKeyOf, type HeldAdvisoryLock } from '../engine/lock-inspector.js';

// ---------------------------------------------------------------------------------------------
// Applications

/** A consumer group of either protocol, as NestHarness.describeGroup sees it. */
export interface DescribedGroup {
  groupId: string;
  /** 'Stable', 'Empty', 'Dead', ... (KIP-848 states capitalised the same way). */
  state: string;
  members: { memberId: string; topics: string[] }[];
}

export interface CreateOptions {
  /** Connect BroadcastTransport as a microservice (hybrid app) before init. Default false. */
  transport?: boolean;
  /** Nest logger for this app (global in Nest!). Default: the quiet console logger. */
  logger?: LoggerService;
}

export class NestHarness {
  readonly prefix: string;
  readonly brokers: string[];
  private readonly apps: INestApplication[] = [];
  private adminClient: Promise<Admin> | undefined;
  private readonly cleanups: (() => Promise<unknown> | unknown)[] = [];

  constructor(
    name: string,
    brokers: string[] = kafkaBrokers(),
    /** kafka.client of the options() given to apps (undefined: the library's default). */
    readonly client?: BroadcastKafkaClient,
  ) {
    this.prefix = testPrefix(clientScoped(name, client));
    this.brokers = brokers;
  }

  /**
   * Module options for this harness: its prefix, the fast consumer timings, its Kafka client
   * adapter, plus `extra`.
   */
  options(extra: Partial<BroadcastModuleOptions> = {}): BroadcastModuleOptions {
    return {
      kafka: {
        brokers: this.brokers,
        clientId: `nest-test-${runId()}`,
        ...(this.client && { client: this.client }),
        ...groupProtocolOf(this.client),
      },
      topicPrefix: this.prefix,
      consumer: FAST_CONSUMER,
      ...extra,
    };
  }

  /** Compiles `metadata` into an app (tracked for cleanup) without initialising it. */
  async create(
    metadata: ModuleMetadata,
    { transport = false, logger }: CreateOptions = {},
  ): Promise<INestApplication> {
    const appLogger = logger ?? quietLogger();
    // The transport is a provider of the app's own module, next to the imported BroadcastModule.
    const providers = [...(metadata.providers ?? []), ...(transport ? [BroadcastTransport] : [])];
    const moduleRef = await Test.createTestingModule({ ...metadata, providers })
      .setLogger(appLogger)
      .compile();
    const app = moduleRef.createNestApplication({ logger: appLogger });
    this.apps.push(app);
    if (transport) app.connectMicroservice({ strategy: app.get(BroadcastTransport) });
    return app;
  }

  /** create() + app.init(). */
  async start(metadata: ModuleMetadata, options: CreateOptions = {}): Promise<INestApplication> {
    const app = await this.create(metadata, options);
    await app.init();
    return app;
  }

  /** Closes one app now (and forgets it). */
  async close(app: INestApplication): Promise<void> {
    const i = this.apps.indexOf(app);
    if (i >= 0) this.apps.splice(i, 1);
    await app.close();
  }

  /** A connected admin for this harness's brokers. */
  admin(): Promise<Admin> {
    this.adminClient ??= (async () => {
      const admin = new Kafka({
        clientId: `nest-test-admin-${runId()}`,
        brokers: this.brokers,
        logLevel: logLevel.NOTHING,
      }).admin();
      await admin.connect();
      return admin;
    })();
    return this.adminClient;
  }

  /** Consumer groups under this harness's prefix, sorted. */
  async groups(): Promise<string[]> {
    const { groups } = await (await this.admin()).listGroups();
    return groups
      .map((g) => g.groupId)
      .filter((id) => id.startsWith(this.prefix))
      .sort();
  }

  /**
   * One group as DescribeGroups shows it (state, members and the topics assigned to each), or, for
   * a KIP-848 group (DescribeGroups answers 'Dead' and no members), as ConsumerGroupDescribe does
   * (the topics each member subscribed to).
   */
  async describeGroup(groupId: string): Promise<DescribedGroup> {
    const { groups } = await (await this.admin()).describeGroups([groupId]);
    const group = groups.find((g) => g.groupId === groupId);
    if (group && group.state !== 'Dead')
      return {
        groupId,
        state: group.state,
        members: group.members.map((m) => ({
          memberId: m.memberId,
          topics: Object.keys(
            AssignerProtocol.MemberAssignment.decode(m.memberAssignment)?.assignment ?? {},
          ),
        })),
      };
    const kip848 = await consumerGroupView(this.brokers, groupId);
    return { groupId, state: kip848?.state ?? 'Dead', members: kip848?.members ?? [] };
  }

  /** Runs `fn` during cleanup, after the apps are closed (LIFO among themselves). */
  defer(fn: () => Promise<unknown> | unknown): void {
    this.cleanups.push(fn);
  }

  /** Closes every app, runs deferred cleanups, deletes this prefix's groups and topics. */
  async cleanup({ deleteKafkaState = true }: { deleteKafkaState?: boolean } = {}): Promise<void> {
    const errors: unknown[] = [];
    for (const app of this.apps.splice(0).reverse()) {
      await app.close().catch((e: unknown) => errors.push(e));
    }
    for (const fn of this.cleanups.splice(0).reverse()) {
      await Promise.resolve()
        .then(fn)
        .catch((e: unknown) => errors.push(e));
    }
    if (deleteKafkaState) await this.deleteKafkaState().catch((e: unknown) => errors.push(e));
    const admin = this.adminClient;
    this.adminClient = undefined;
    if (admin) await (await admin.catch(() => undefined))?.disconnect();
    // An app may have installed a capturing logger as Nest's global one.
    Logger.overrideLogger(quietLogger());
    if (errors.length > 0) throw new AggregateError(errors, `cleanup of ${this.prefix} failed`);
  }

  private async deleteKafkaState(): Promise<void> {
    const admin = await this.admin();
    const groups = await this.groups();
    if (groups.length > 0) await admin.deleteGroups(groups).catch(() => undefined);
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(this.prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics, timeout: 30_000 });
  }
}

/**
 * A harness whose cleanup runs when the current test finishes. Call inside a test. `client`
 * picks the Kafka client adapter of its options() (see kafka-clients.ts).
 */
export function useNestHarness(
  name: string,
  brokers?: string[],
  client?: BroadcastKafkaClient,
): NestHarness {
  const harness = new NestHarness(name, brokers, client);
  onTestFinished(() => harness.cleanup());
  return harness;
}

// Quiet by default: Nest's "dependencies initialized" lines are noise in test output.
Logger.overrideLogger(quietLogger());
