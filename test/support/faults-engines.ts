// In-process engines for the fault scenarios that involve no process crash (concurrent starts,
// bad input, bad handlers, new partitions). Each engine gets its own DataSource (its own pool,
// like a separate application instance) and a logger that records every line.
import { DataSource, type DataSourceOptions } from 'typeorm';
import {
  BroadcastEngine,
  type BroadcastHandler,
  type BroadcastMessage,
  type BroadcastModuleOptions,
} from 'nestjs-kafka-broadcast';
import { connectedAdmin, deletePrefix, FAULT_CONSUMER, FAULT_LOCK_CHECK_MS } from './faults.js';
import type { LockKind } from './instances.js';
import { CapturingLogger } from './capturing-logger.js';

export const PG_DATA_SOURCE = {
  type: 'postgres',
  host: '127.0.0.1',
  port: 5432,
  username: 'postgres',
  database: 'test',
} as const satisfies DataSourceOptions;

export const MARIADB_DATA_SOURCE = {
  type: 'mariadb',
  host: '127.0.0.1',
  port: 3306,
  username: 'root',
  password: '',
  database: 'test',
} as const satisfies DataSourceOptions;

export function dataSourceOptions(
  kind: Exclude<LockKind, 'none'>,
  applicationName?: string,
): DataSourceOptions {
  return kind === 'postgres' ? { ...PG_DATA_SOURCE, applicationName } : MARIADB_DATA_SOURCE;
}

export interface LocalEngine {
  name: string;
  engine: BroadcastEngine;
  logger: CapturingLogger;
  dataSource: DataSource | undefined;
  /** Messages seen by the collecting handler (registered last), per logical topic. */
  messages: Map<string, { message: BroadcastMessage; at: number }[]>;
  payloads(topic: string): unknown[];
  startMs?: number;
}

export interface LocalEngineSpec {
  name: string;
  lock: LockKind;
  topics: string[];
  /** Handlers registered before the collector. */
  register?: (engine: BroadcastEngine) => void;
  options?: Partial<Omit<BroadcastModuleOptions, 'kafka' | 'topicPrefix'>>;
  /** A DataSource other than the lock kind's (e.g. better-sqlite3). */
  dataSource?: DataSourceOptions;
}

/** Engines of one scenario under one prefix; `cleanup()` stops them and removes their Kafka names. */
export class LocalEngines {
  readonly engines: LocalEngine[] = [];

  constructor(
    readonly prefix: string,
    readonly brokers: string[],
  ) {}

  async create(spec: LocalEngineSpec): Promise<LocalEngine> {
    const logger = new CapturingLogger(spec.name);
    const dsOptions =
      spec.dataSource ??
      (spec.lock === 'none'
        ? undefined
        : dataSourceOptions(spec.lock, `${this.prefix}${spec.name}`.slice(0, 63)));
    const dataSource = dsOptions ? await new DataSource(dsOptions).initialize() : undefined;
    const options: BroadcastModuleOptions = {
      kafka: { brokers: this.brokers, clientId: `${this.prefix}${spec.name}` },
      topicPrefix: this.prefix,
      consumer: FAULT_CONSUMER,
      heartbeat: false,
      instanceId: spec.name,
      lock:
        spec.lock === 'none' && !spec.dataSource ? false : { checkIntervalMs: FAULT_LOCK_CHECK_MS },
      ...spec.options,
    };
    let engine: BroadcastEngine;
    try {
      engine = new BroadcastEngine(options, { dataSource, logger });
    } catch (error) {
      if (dataSource?.isInitialized) await dataSource.destroy();
      throw error;
    }
    spec.register?.(engine);
    const messages = new Map<string, { message: BroadcastMessage; at: number }[]>();
    for (const topic of spec.topics) {
      const list: { message: BroadcastMessage; at: number }[] = [];
      messages.set(topic, list);
      const collect: BroadcastHandler = (_payload, message) =>
        void list.push({ message, at: Date.now() });
      engine.on(topic, collect, `collector(${spec.name})`);
    }
    const local: LocalEngine = {
      name: spec.name,
      engine,
      logger,
      dataSource,
      messages,
      payloads: (topic) => (messages.get(topic) ?? []).map((m) => m.message.payload),
    };
    this.engines.push(local);
    return local;
  }

  async start(local: LocalEngine): Promise<LocalEngine> {
    const started = Date.now();
    await local.engine.start();
    local.startMs = Date.now() - started;
    return local;
  }

  async stop(local: LocalEngine): Promise<void> {
    try {
      await local.engine.stop();
    } finally {
      if (local.dataSource?.isInitialized) await local.dataSource.destroy();
    }
  }

  /** Stops every engine, destroys every DataSource, deletes the prefix's groups and topics. */
  async cleanup(): Promise<void> {
    await Promise.allSettled(this.engines.splice(0).map((e) => this.stop(e)));
    const admin = await connectedAdmin(this.brokers);
    try {
      await deletePrefix(admin, this.prefix);
    } finally {
      await admin.disconnect();
    }
  }

  logs(): string {
    return this.engines
      .flatMap((e) => e.logger.lines.map((l) => ({ ...l, who: e.name })))
      .sort((a, b) => a.at - b.at)
      .map((l) => `${new Date(l.at).toISOString().slice(11, 23)} ${l.who} ${l.level} ${l.message}`)
      .join('\n');
  }
}
