import type { BroadcastHandlerOptions } from '../interfaces/broadcast-failure-policy.interface.js';
import type { BroadcastInstrumentation } from '../interfaces/broadcast-instrumentation.interface.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import type { BroadcastHandler } from '../interfaces/broadcast-message.interface.js';
import type { BroadcastModuleOptions } from '../interfaces/broadcast-module-options.interface.js';
import type { KafkaPort } from '../interfaces/kafka-port.interface.js';
import { BroadcastStoppedError } from '../errors/broadcast-stopped.error.js';
import { NO_INSTRUMENTATION } from '../interfaces/no-instrumentation.js';
import { LockBinding } from '../locks/lock-binding.js';
import { errorMessage, holdProcessOpen } from '../shared/async.utils.js';
import type { BroadcastEngineDeps } from './broadcast-engine.deps.js';
import { consoleLogger } from './console-logger.js';
import { withContextFields } from './contextual-logger.js';
import { EngineFeatures } from './engine-features.js';
import { EngineLifecycleLog } from './engine-lifecycle-log.js';
import { engineAllocator, engineHeartbeat, engineOutlets, readerSettings } from './engine-parts.js';
import { LazyKafkaPort } from './lazy-kafka-port.js';
import { bindEngineLocks } from './engine-locks.js';
import { instrumentEngine, type InstrumentedParts } from './engine-telemetry.js';
import type { BroadcastGroupAllocator } from '../core/allocation/broadcast-group.allocator.js';
import { BroadcastHandlerRegistry } from '../core/dispatch/broadcast-handler.registry.js';
import {
  resolveBroadcastOptions,
  type ResolvedBroadcastOptions,
} from '../core/options/broadcast-options.resolver.js';
import { BroadcastDispatcher } from '../core/dispatch/broadcast.dispatcher.js';
import type { BroadcastHeartbeat } from '../core/heartbeat/broadcast.heartbeat.js';
import { BroadcastPublisher } from '../core/publishing/broadcast.publisher.js';
import { BroadcastReader } from '../core/reading/broadcast.reader.js';
import type { BroadcastStatus } from '../interfaces/broadcast-status.interface.js';
import { engineStatus } from './engine-status.js';
import { type BroadcastTopic, topicName } from '../core/broadcast-definition.js';
import { BroadcastRoster } from '../core/features/roster/broadcast-roster.js';
import { resolveHandlerPolicy } from '../core/dispatch/handler-policy.js';
import { refuseReadDeadLetterTopic } from '../core/options/failure-options.resolver.js';
import { ReadPositions } from '../core/positions/read-positions.js';
import type { EngineReader } from './engine-reader.js';

/**
 * The whole broadcast engine without Nest: allocator, reader, heartbeat and publisher,
 * wired together. BroadcastModule is a thin layer over this class.
 */
export class BroadcastEngine {
  /** The checked options with every default filled in. */
  readonly options: ResolvedBroadcastOptions;
  /** The reader's group, readiness and status (status() is the engine's, see status()). */
  readonly reader: EngineReader;
  /** Reads the broadcast topics through this instance's own group. */
  private readonly readerCore: BroadcastReader;
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
  /** Roster, receipts, replay window and schemas (see EngineFeatures). */
  private readonly features: EngineFeatures;
  private readonly stopSignal = new AbortController();
  private startedAt = Date.now();
  private readonly logger: BroadcastLogger;
  /** The ready and stopped lines. */
  private readonly lifecycleLog: EngineLifecycleLog;
  private readonly dataSource: BroadcastEngineDeps['dataSource'];
  private stopping: Promise<void> | undefined;
  /** What start() set going (reading, then the replay catch-up); stop() waits for it. */
  private reading: Promise<void> | undefined;
  /**
   * Imported in the background from the constructor on; the start snapshot waits for it (so
   * the first record's handler calls are observed), the connection work before it does not.
   */
  private readonly instrumentation: Promise<BroadcastInstrumentation>;
  /** The loaded instrumentation, once it is (until then, none). */
  private telemetry: BroadcastInstrumentation = NO_INSTRUMENTATION;
  /** Ends the hold on the process that start() took (see holdProcessOpen); stop() calls it. */
  private release: (() => void) | undefined;

  constructor(options: BroadcastModuleOptions, deps: BroadcastEngineDeps = {}) {
    const o = (this.options = resolveBroadcastOptions(options));
    // Every warning and error also carries this instance's current group and lock id as data.
    const logger = (this.logger = withContextFields(deps.logger ?? consoleLogger, () => ({
      group: this.readerCore?.groupId,
      lockId: this.readerCore?.status().lockId,
    })));
    // The client (kafka.client, or whichever is installed) is imported in the background from
    // here on (no client made, no socket), so start() finds it loaded when the app does other
    // work in between (a Nest app builds its other providers, TypeORM connects). A port handed
    // in (the in-memory testing Kafka) loads no client.
    this.kafka = deps.kafka ?? LazyKafkaPort.forOptions(o, logger, deps.probe).warm();
    this.lifecycleLog = new EngineLifecycleLog(logger, () => this.kafka.about?.());
    this.dataSource = deps.dataSource;
    if (typeof deps.dataSource !== 'function') this.bindLocks();
    this.allocator = engineAllocator(o, this.locks, this.kafka, logger, deps.probe);
    const features = (this.features = new EngineFeatures(o, this.kafka, logger));
    // The receipts topic joins the registry; the port it returns adds this instance's member
    // info to every join of the reader.
    const readerKafka = features.wire(this.registry, () => this.startedAt);
    // Telemetry loads in the background: the parts read it at each call, never set afterwards.
    const instrumentation = () => this.telemetry;
    this.dispatcher = new BroadcastDispatcher(this.registry, o, logger, this.positions, {
      ...features.dispatcherWiring(() => this.allocator.base),
      outlets: engineOutlets(o, this.kafka, logger),
      instrumentation,
    });
    const reader = (this.readerCore = new BroadcastReader(readerSettings(o), {
      kafka: readerKafka,
      allocator: this.allocator,
      registry: this.registry,
      dispatcher: this.dispatcher,
      positions: this.positions,
      locks: this.locks,
      logger,
      probe: deps.probe,
      // No record reaches a handler before the start snapshot: telemetry, imported beside the
      // connection work since the constructor, is loaded by then, so no call goes unobserved.
      startOffsets: async (topics) =>
        (await Promise.all([features.startOffsets(topics), this.instrumentation]))[0],
    }));
    this.reader = {
      get groupId() {
        return reader.groupId;
      },
      status: () => this.status(),
      whenReady: () => reader.whenReady(),
    };
    this.roster = features.roster;
    this.publisher = new BroadcastPublisher(
      this.kafka,
      o.topicPrefix,
      features.publishing(() => reader.status().state === 'ready'),
      instrumentation,
    );
    this.heartbeat = engineHeartbeat(o, this.dispatcher, reader, this.kafka, logger, features);
    this.instrumentation = instrumentEngine(deps.instrumentation, o, this.instrumented(), logger)
      // The parts read it from here at each call (see `instrumentation` above).
      .then((loaded) => (this.telemetry = loaded));
  }

  /**
   * Registers a handler; call before start(). With a definition that has a schema, payloads
   * that fail it are logged, counted `invalid` and not handed to any handler of the topic.
   * The third argument is the handler's name, or its options: `name`, `retry: { attempts,
   * backoffMs, maxBackoffMs }` and `timeoutMs` (see BroadcastHandlerOptions); invalid options
   * throw a BroadcastOptionsError naming the option and the handler.
   */
  on<T = unknown>(
    topic: BroadcastTopic<T>,
    handler: BroadcastHandler<T>,
    nameOrOptions?: string | BroadcastHandlerOptions,
  ): this {
    const logical = topicName(topic);
    const options = typeof nameOrOptions === 'object' ? nameOrOptions : { name: nameOrOptions };
    const name = options.name ?? (handler.name || 'anonymous handler');
    const policy = resolveHandlerPolicy(name, options, {
      handlerTimeoutMs: this.options.handlerTimeoutMs,
      sessionTimeoutMs: this.options.consumer.sessionTimeoutMs,
    });
    if (typeof topic !== 'string' && topic.schema) this.features.schemas.set(logical, topic.schema);
    this.registry.add(logical, handler as BroadcastHandler, name, policy);
    return this;
  }

  /**
   * Starts reading and heartbeating. With waitForReady (the default) it resolves once the
   * group is ready and rejects if the startup deadline passes, once the engine has stopped
   * itself (a failed start is final: nothing it opened outlives it); otherwise it resolves at
   * once and the reader keeps trying in the background. Once stop() was called, it starts
   * nothing and rejects as stopped.
   */
  async start(): Promise<void> {
    // From start() until stop() the engine holds its process, as a Kafka consumer does whatever
    // its sockets do: its own waits use unref'd timers, so an app whose only work is the engine
    // would otherwise end silently, with code 0, when no socket is open (between two rejoin
    // attempts of a broker outage, or before start() could report its failure).
    if (!this.stopSignal.signal.aborted) this.release ??= holdProcessOpen();
    try {
      await this.startReading();
    } catch (error) {
      // A failed start is final: the reader gave up, and start() again shares its outcome. So the
      // engine stops as stop() would before it reports the failure: a client left connected
      // would keep reconnecting to the broker it could not reach and hold the process open (as
      // librdkafka's does), and the status would still say starting. A stop() of the caller's
      // shares this one.
      await this.stop().catch((stopError: unknown) =>
        this.logger.error(`Broadcast stop after a failed start failed: ${errorMessage(stopError)}`),
      );
      throw error;
    }
  }

  /**
   * The engine's status: the reader's state and group, the pool as the allocator saw it and the
   * dispatcher's counters (BroadcastStatus). `reader.status()` is the same.
   */
  status(): BroadcastStatus {
    return engineStatus(
      this.readerCore.status(),
      this.allocator,
      this.dispatcher.counters(),
      this.heartbeat.kafkaUnansweredMs(),
    );
  }

  private async startReading(): Promise<void> {
    // Once stop() was called nothing starts: no lock binding, no reader, no Kafka client.
    this.throwIfStopped();
    const { deadLetter, heartbeatTopic } = this.options;
    refuseReadDeadLetterTopic(deadLetter, [...this.registry.topics(), heartbeatTopic]);
    if (!this.locks.bound) this.bindLocks();
    // The telemetry import is not awaited here: it took ~61 ms of CPU before any connection work
    // began (a cold kafkajs process); the start snapshot waits for it (see startOffsets above).
    const startedAt = (this.startedAt = Date.now());
    const deadline = startedAt + this.options.startupTimeoutMs;
    // With a replay window, ready also means the replayed records were handed to the handlers.
    const reading = Promise.all([this.readerCore.start(), this.ensureDeadLetterTopic()])
      .then(() => this.features.replay.caughtUp(this.positions, deadline, this.stopSignal.signal))
      .then(() => this.throwIfStopped());
    this.reading = reading.catch(() => undefined);
    // Heartbeats start once we read, so our own first heartbeat also tells us our freshness.
    this.readerCore.whenReady().then(
      () => {
        this.lifecycleLog.ready(this.status(), startedAt);
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
    // Once start() resolved, publishes are instrumented, as with waitForReady.
    await this.instrumentation;
  }

  /** Stops the heartbeat, leaves the group, frees the lock, disconnects. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const stoppingAt = Date.now();
      const held = this.status();
      this.stopSignal.abort();
      // Together: the reader must stop allocating or joining at once, not after a heartbeat send.
      await Promise.all([this.heartbeat.stop(), this.roster.stop(), this.readerCore.stop()]);
      // Whatever start() had in flight ends now that the reader stopped: wait for it, so that
      // nothing it set going outlives stop().
      await this.reading;
      this.features.stop();
      // Waiting retries end as final failures; their hooks and dead letters get one bound.
      await this.dispatcher.stop(this.options.handlerTimeoutMs);
      await this.kafka.disconnect();
      (await this.instrumentation).close?.();
      this.lifecycleLog.stopped(held, stoppingAt);
    })().finally(() => this.letGo());
    return this.stopping;
  }

  private letGo(): void {
    this.release?.();
    this.release = undefined;
  }

  /** @internal The handler calls: their failures and background work (the testing helper's). */
  get handlerCalls(): BroadcastDispatcher['handlerCalls'] {
    return this.dispatcher.handlerCalls;
  }

  private throwIfStopped(): void {
    if (this.stopSignal.signal.aborted) throw new BroadcastStoppedError();
  }

  /** The dead-letter topic is created with the others, never read by this engine. */
  private async ensureDeadLetterTopic(): Promise<void> {
    const { deadLetter, topicPrefix } = this.options;
    if (deadLetter)
      await this.kafka.admin.ensureTopics([topicPrefix + deadLetter.topic], this.stopSignal.signal);
  }

  private instrumented(): InstrumentedParts {
    const { reader, heartbeat, dispatcher } = this;
    return { reader, heartbeat, dispatcher };
  }

  private bindLocks(): void {
    const given = this.dataSource;
    const dataSource = () => (typeof given === 'function' ? given() : given);
    bindEngineLocks(this.locks, this.options, dataSource, this.logger);
  }
}
