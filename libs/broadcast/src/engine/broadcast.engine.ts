import {
  DEFAULT_LOCK_FREE_GROUP_BASE,
  DEFAULT_LOCKED_GROUP_BASE,
} from '../core/broadcast.defaults.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import type { BroadcastHandler } from '../interfaces/broadcast-message.interface.js';
import type { BroadcastModuleOptions } from '../interfaces/broadcast-module-options.interface.js';
import type { KafkaPort } from '../interfaces/kafka-port.interface.js';
import { KafkajsAdapter } from '../kafka/kafkajs.adapter.js';
import { createAdvisoryLockProvider } from '../locks/advisory-lock.factory.js';
import { LockBinding } from '../locks/lock-binding.js';
import { LockFreeProvider } from '../locks/lock-free.js';
import type { LockSessionSource } from '../locks/lock-session.js';
import { errorMessage } from '../shared/async.utils.js';
import { BroadcastGroupAllocator } from '../core/broadcast-group.allocator.js';
import { BroadcastHandlerRegistry } from '../core/broadcast-handler.registry.js';
import {
  resolveBroadcastOptions,
  type ResolvedBroadcastOptions,
} from '../core/broadcast-options.resolver.js';
import { BroadcastDispatcher } from '../core/broadcast.dispatcher.js';
import { BroadcastHeartbeat } from '../core/broadcast.heartbeat.js';
import { BroadcastPublisher } from '../core/broadcast.publisher.js';
import { BroadcastReader } from '../core/broadcast.reader.js';
import type { StepProbe } from '../core/group-membership.js';
import { ReadPositions } from '../core/read-positions.js';

/** What the engine is built from besides its options. */
export interface BroadcastEngineDeps {
  /**
   * A TypeORM DataSource that supplies advisory locks unless options.lock is false or names a
   * provider. A function is called once, at start(), so a DataSource created later in the
   * application's bootstrap can be used.
   */
  dataSource?: LockSessionSource | (() => LockSessionSource | undefined);
  logger?: BroadcastLogger;
  /** @internal A Kafka client other than the bundled kafkajs adapter (tests and future adapters). */
  kafka?: KafkaPort;
  /**
   * @internal Test hook, not an option: called with the name of each startup and recovery
   * step (allocate, lock, delete, snapshot, connect, subscribe, run, joined, verify, rejoin,
   * recover) as it begins, so a test can stop the engine exactly there.
   */
  probe?: StepProbe;
}

/**
 * The whole broadcast engine without Nest: allocator, reader, heartbeat and publisher,
 * wired together. BroadcastModule is a thin layer over this class.
 */
export class BroadcastEngine {
  /** The checked options with every default filled in. */
  readonly options: ResolvedBroadcastOptions;
  /** Reads the broadcast topics through this instance's own group. */
  readonly reader: BroadcastReader;
  /** Publishes broadcasts. */
  readonly publisher: BroadcastPublisher;
  /** Claims this instance's group id. */
  readonly allocator: BroadcastGroupAllocator;
  /** Sends the heartbeats that keep freshness measurable. */
  readonly heartbeat: BroadcastHeartbeat;
  private readonly registry = new BroadcastHandlerRegistry();
  private readonly kafka: KafkaPort;
  private readonly locks = new LockBinding();
  private readonly dispatcher: BroadcastDispatcher;
  /** Where every partition is read from: the engine's, never the broker's committed offsets. */
  private readonly positions = new ReadPositions();
  private readonly logger: BroadcastLogger;
  private readonly dataSource: BroadcastEngineDeps['dataSource'];
  private stopping: Promise<void> | undefined;

  constructor(options: BroadcastModuleOptions, deps: BroadcastEngineDeps = {}) {
    const o = (this.options = resolveBroadcastOptions(options));
    const logger = (this.logger = deps.logger ?? consoleLogger);
    this.kafka = deps.kafka ?? new KafkajsAdapter(o, logger);
    this.dataSource = deps.dataSource;
    if (typeof deps.dataSource !== 'function') this.bindLocks();
    this.allocator = new BroadcastGroupAllocator(
      {
        topicPrefix: o.topicPrefix,
        lockedBase: o.groupBaseName ?? DEFAULT_LOCKED_GROUP_BASE,
        lockFreeBase: o.groupBaseName ?? DEFAULT_LOCK_FREE_GROUP_BASE,
        maxGroups: o.maxGroups,
      },
      this.locks,
      this.kafka.admin,
      logger,
      deps.probe,
    );
    this.dispatcher = new BroadcastDispatcher(this.registry, o, logger, this.positions);
    this.reader = new BroadcastReader(
      {
        topicPrefix: o.topicPrefix,
        heartbeatTopic: o.heartbeatTopic,
        startupTimeoutMs: o.startupTimeoutMs,
        failOnStartupTimeout: o.waitForReady,
        lockCheckIntervalMs: o.lock === false ? 0 : o.lock.checkIntervalMs,
        joinTimeoutMs: Math.max(15_000, 2 * o.consumer.sessionTimeoutMs),
        contestGraceMs: o.consumer.sessionTimeoutMs,
      },
      {
        kafka: this.kafka,
        allocator: this.allocator,
        registry: this.registry,
        dispatcher: this.dispatcher,
        positions: this.positions,
        locks: this.locks,
        logger,
        probe: deps.probe,
      },
    );
    this.publisher = new BroadcastPublisher(this.kafka, o.topicPrefix);
    this.heartbeat = new BroadcastHeartbeat(
      o.heartbeat && {
        ...o.heartbeat,
        topic: o.topicPrefix + o.heartbeat.topic,
        instanceId: o.instanceId,
      },
      {
        newestTimestamp: () => this.dispatcher.newestTimestamp,
        groupId: () => this.reader.groupId,
      },
      (topic, payload) =>
        this.kafka.send(topic, [{ key: o.instanceId, value: JSON.stringify(payload) }]),
      logger,
    );
  }

  /** Registers a handler; call before start(). */
  on<T = unknown>(topic: string, handler: BroadcastHandler<T>, name?: string): this {
    this.registry.add(topic, handler as BroadcastHandler, name);
    return this;
  }

  /**
   * Starts reading and heartbeating. With waitForReady (the default) it resolves once the
   * group is ready and rejects if the startup deadline passes; otherwise it resolves at once
   * and the reader keeps trying in the background.
   */
  async start(): Promise<void> {
    if (!this.locks.bound) this.bindLocks();
    const reading = this.reader.start();
    // Heartbeats start once we read, so our own first heartbeat also tells us our freshness.
    this.reader.whenReady().then(
      () => this.heartbeat.start(),
      () => undefined,
    );
    if (this.options.waitForReady) return reading;
    reading.catch((error: unknown) =>
      this.logger.error(`Broadcast startup failed: ${errorMessage(error)}`),
    );
  }

  /** Stops the heartbeat, leaves the group, frees the lock, disconnects. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await this.heartbeat.stop();
      await this.reader.stop();
      await this.kafka.disconnect();
    })();
    return this.stopping;
  }

  private bindLocks(): void {
    const o = this.options;
    if (o.lock === false) return this.locks.bind(new LockFreeProvider());
    const namespace = o.topicPrefix + (o.groupBaseName ?? DEFAULT_LOCKED_GROUP_BASE);
    const { provider } = o.lock;
    if (provider) {
      const logger = this.logger;
      return this.locks.bind(
        typeof provider === 'function' ? provider({ namespace, logger }) : provider,
      );
    }
    const dataSource = typeof this.dataSource === 'function' ? this.dataSource() : this.dataSource;
    if (!dataSource)
      this.logger.warn(
        'No TypeORM DataSource is available for broadcast locks; running lock-free.',
      );
    this.locks.bind(createAdvisoryLockProvider(dataSource, namespace, this.logger));
  }
}

const consoleLogger: BroadcastLogger = {
  log: (m) => console.log(`[broadcast] ${m}`),
  warn: (m) => console.warn(`[broadcast] ${m}`),
  error: (m, stack) => console.error(`[broadcast] ${m}${stack ? `\n${stack}` : ''}`),
};
