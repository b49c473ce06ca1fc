import {
  DEFAULT_LOCK_FREE_GROUP_BASE,
  DEFAULT_LOCKED_GROUP_BASE,
} from '../core/broadcast.defaults.js';
import type { BroadcastInstrumentation } from '../interfaces/broadcast-instrumentation.interface.js';
import type {
  BroadcastLogFields,
  BroadcastLogger,
} from '../interfaces/broadcast-logger.interface.js';
import type { BroadcastHandler } from '../interfaces/broadcast-message.interface.js';
import type { StandardSchemaV1 } from '../interfaces/standard-schema.interface.js';
import type { BroadcastModuleOptions } from '../interfaces/broadcast-module-options.interface.js';
import type { KafkaPort } from '../interfaces/kafka-port.interface.js';
import { KafkajsAdapter } from '../kafka/kafkajs.adapter.js';
import { createAdvisoryLockProvider } from '../locks/advisory-lock.factory.js';
import { LockBinding } from '../locks/lock-binding.js';
import { LockFreeProvider } from '../locks/lock-free.js';
import type { LockSessionSource } from '../locks/lock-session.js';
import { errorMessage } from '../shared/async.utils.js';
import { loadInstrumentation } from '../telemetry/load-instrumentation.js';
import { withContextFields } from './contextual-logger.js';
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
import { type BroadcastTopic, topicName } from '../core/broadcast-definition.js';
import { BroadcastGate } from '../core/broadcast-gate.js';
import { BroadcastRoster } from '../core/broadcast-roster.js';
import { encodeMemberInfo } from '../core/member-info.js';
import { PublishFeatures } from '../core/publish-features.js';
import { ReceiptTracker } from '../core/receipt-tracker.js';
import { ReplayWindow } from '../core/replay-window.js';
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
   * Traces and metrics. Default: OpenTelemetry through @opentelemetry/api when it is installed
   * (a no-op until the application registers an SDK); `false` turns instrumentation off.
   */
  instrumentation?: BroadcastInstrumentation | false;
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
  /** The instances live now (see BroadcastRoster). */
  readonly roster: BroadcastRoster;
  private readonly registry = new BroadcastHandlerRegistry();
  private readonly kafka: KafkaPort;
  private readonly locks = new LockBinding();
  private readonly dispatcher: BroadcastDispatcher;
  /** Where every partition is read from: the engine's, never the broker's committed offsets. */
  private readonly positions = new ReadPositions();
  private readonly receipts: ReceiptTracker | undefined;
  /** The opt-in replay window at start (option `replay`). */
  private readonly replay: ReplayWindow;
  private readonly stopSignal = new AbortController();
  /** Schemas of the topics defined with one (defineBroadcast), by logical topic. */
  private readonly schemas = new Map<string, StandardSchemaV1>();
  private startedAt = Date.now();
  private readonly logger: BroadcastLogger;
  private readonly dataSource: BroadcastEngineDeps['dataSource'];
  private stopping: Promise<void> | undefined;
  /** Imported in the background from the constructor on; start() waits for it. */
  private readonly instrumentation: Promise<BroadcastInstrumentation>;

  constructor(options: BroadcastModuleOptions, deps: BroadcastEngineDeps = {}) {
    const o = (this.options = resolveBroadcastOptions(options));
    // Every warning and error also carries this instance's current group and lock id as data.
    const logger = (this.logger = withContextFields(deps.logger ?? consoleLogger, () => ({
      group: this.reader?.groupId,
      lockId: this.reader?.status().lockId,
    })));
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
    this.wireFeatures();
    this.replay = new ReplayWindow(
      new Map([...o.replay].map(([topic, ms]) => [o.topicPrefix + topic, ms])),
      this.kafka.admin,
      logger,
    );
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
        startOffsets: (topics) => this.replay.startOffsets(topics),
      },
    );
    this.roster = new BroadcastRoster(
      { topicPrefix: o.topicPrefix, intervalMs: o.roster.intervalMs },
      this.kafka.admin,
      logger,
    );
    this.receipts = o.receipts
      ? new ReceiptTracker(
          o.instanceId,
          o.topicPrefix + o.receipts.topic,
          (topic, records) => this.kafka.send(topic, records),
          logger,
        )
      : undefined;
    this.dispatcher.gate = new BroadcastGate(this.receipts, this.schemas, () => ({
      instanceId: o.instanceId,
      service: this.service(),
    }));
    this.publisher = new BroadcastPublisher(
      this.kafka,
      o.topicPrefix,
      new PublishFeatures({
        instanceId: o.instanceId,
        roster: this.roster,
        receipts: this.receipts,
        reading: () => this.reader.status().state === 'ready',
      }),
    );
    this.heartbeat = new BroadcastHeartbeat(
      o.heartbeat && {
        ...o.heartbeat,
        topic: o.topicPrefix + o.heartbeat.topic,
        instanceId: o.instanceId,
      },
      {
        newestTimestamp: () => this.dispatcher.newestTimestamp,
        heartbeatsReceived: () => this.dispatcher.heartbeats,
        groupId: () => this.reader.groupId,
      },
      (topic, payload) =>
        this.kafka.send(topic, [{ key: o.instanceId, value: JSON.stringify(payload) }]),
      logger,
    );
    this.instrumentation = this.instrument(deps.instrumentation);
  }

  /**
   * Registers a handler; call before start(). With a definition that has a schema, payloads
   * that fail it are logged, counted `invalid` and not handed to any handler of the topic.
   */
  on<T = unknown>(topic: BroadcastTopic<T>, handler: BroadcastHandler<T>, name?: string): this {
    const logical = topicName(topic);
    if (typeof topic !== 'string' && topic.schema) this.schemas.set(logical, topic.schema);
    this.registry.add(logical, handler as BroadcastHandler, name);
    return this;
  }

  /**
   * Starts reading and heartbeating. With waitForReady (the default) it resolves once the
   * group is ready and rejects if the startup deadline passes; otherwise it resolves at once
   * and the reader keeps trying in the background.
   */
  async start(): Promise<void> {
    if (!this.locks.bound) this.bindLocks();
    await this.instrumentation;
    this.startedAt = Date.now();
    const deadline = this.startedAt + this.options.startupTimeoutMs;
    // With a replay window, ready also means the replayed records were handed to the handlers.
    const reading = this.reader
      .start()
      .then(() => this.replay.caughtUp(this.positions, deadline, this.stopSignal.signal));
    // Heartbeats start once we read, so our own first heartbeat also tells us our freshness.
    this.reader.whenReady().then(
      () => {
        this.heartbeat.start();
        this.roster.start();
      },
      () => undefined,
    );
    if (this.options.waitForReady) return reading;
    reading.catch((error: unknown) =>
      this.logger.error(`Broadcast startup failed: ${errorMessage(error)}`, undefined, {
        reason: errorMessage(error),
      }),
    );
  }

  /** Stops the heartbeat, leaves the group, frees the lock, disconnects. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.stopSignal.abort();
      // Together: the reader must stop allocating or joining at once, not after a heartbeat send.
      await Promise.all([this.heartbeat.stop(), this.roster.stop(), this.reader.stop()]);
      this.receipts?.stop();
      await this.kafka.disconnect();
      (await this.instrumentation).close?.();
    })();
    return this.stopping;
  }

  /** Member info for the roster; the receipts topic read through the same group. */
  private wireFeatures(): void {
    const o = this.options;
    this.kafka.memberUserData = () =>
      encodeMemberInfo(o.instanceId, this.startedAt, o.receipts !== false);
    // Read like a broadcast topic; the gate consumes its records before any handler.
    if (o.receipts) this.registry.add(o.receipts.topic, () => undefined, 'receipts');
  }

  /** The group base this instance reads through: what targeting calls its service. */
  private service(): string | undefined {
    const groupId = this.reader.groupId;
    if (!groupId) return undefined;
    return groupId.slice(this.options.topicPrefix.length, groupId.lastIndexOf('-'));
  }

  private async instrument(
    given: BroadcastInstrumentation | false | undefined,
  ): Promise<BroadcastInstrumentation> {
    const o = this.options;
    const instrumentation = await loadInstrumentation(
      given,
      {
        instanceId: o.instanceId,
        topicPrefix: o.topicPrefix,
        groupId: () => this.reader.groupId,
        status: () => this.reader.status(),
        heartbeats: () => ({ sent: this.heartbeat.sent, received: this.dispatcher.heartbeats }),
      },
      this.logger,
    );
    this.publisher.instrumentation = this.dispatcher.instrumentation = instrumentation;
    return instrumentation;
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
        { reason: 'no DataSource' },
      );
    this.locks.bind(createAdvisoryLockProvider(dataSource, namespace, this.logger));
  }
}

const withFields = (fields: BroadcastLogFields | undefined) =>
  fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
const consoleLogger: BroadcastLogger = {
  log: (m, f) => console.log(`[broadcast] ${m}${withFields(f)}`),
  warn: (m, f) => console.warn(`[broadcast] ${m}${withFields(f)}`),
  error: (m, stack, f) =>
    console.error(`[broadcast] ${m}${withFields(f)}${stack ? `\n${stack}` : ''}`),
};
