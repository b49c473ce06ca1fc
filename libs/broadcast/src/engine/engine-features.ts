import { BroadcastGate } from '../core/features/broadcast-gate.js';
import type { BroadcastHandlerRegistry } from '../core/dispatch/broadcast-handler.registry.js';
import type { DispatcherWiring } from '../core/dispatch/broadcast.dispatcher.js';
import type { ResolvedBroadcastOptions } from '../core/options/broadcast-options.resolver.js';
import { BroadcastRoster } from '../core/features/roster/broadcast-roster.js';
import { encodeMemberInfo } from '../core/features/roster/member-info.js';
import { PublishFeatures } from '../core/publishing/publish-features.js';
import { ReceiptTracker } from '../core/features/receipts/receipt-tracker.js';
import { ReplayWindow } from '../core/features/replay/replay-window.js';
import { NewestHeartbeat } from '../core/heartbeat/newest-heartbeat.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import type { KafkaPort, TopicOffsets } from '../interfaces/kafka-port.interface.js';
import type { StandardSchemaV1 } from '../interfaces/standard-schema.interface.js';

/**
 * The features around plain broadcast, built for one engine: the roster, receipts, the replay
 * window at start and the schemas of defined topics. They reach the reader through three
 * seams only: the member info of the group membership, the dispatcher's gate and the publisher.
 */
export class EngineFeatures {
  /** The instances live now (see BroadcastRoster). */
  readonly roster: BroadcastRoster;
  /** Receipts asked for and given; undefined with option `receipts: false`. */
  readonly receipts: ReceiptTracker | undefined;
  /** The opt-in replay window at start (option `replay`). */
  readonly replay: ReplayWindow;
  /** Schemas of the topics defined with one (defineBroadcast), by logical topic. */
  readonly schemas = new Map<string, StandardSchemaV1>();
  /** The newest heartbeat in the log, read at start: freshness known at once. */
  readonly newestHeartbeat: NewestHeartbeat;

  constructor(
    private readonly options: ResolvedBroadcastOptions,
    private readonly kafka: KafkaPort,
    private readonly logger: BroadcastLogger,
  ) {
    const o = options;
    this.replay = new ReplayWindow(
      new Map([...o.replay].map(([topic, ms]) => [o.topicPrefix + topic, ms])),
      kafka.admin,
      logger,
    );
    const heartbeatTopic = o.heartbeat ? o.topicPrefix + o.heartbeatTopic : undefined;
    this.newestHeartbeat = new NewestHeartbeat(heartbeatTopic, kafka.admin, logger);
    this.roster = new BroadcastRoster(
      {
        topicPrefix: o.topicPrefix,
        intervalMs: o.roster.intervalMs,
        lookAtStart: o.instanceIdChosen,
      },
      kafka.admin,
      logger,
    );
    this.receipts = o.receipts
      ? new ReceiptTracker(
          o.instanceId,
          o.topicPrefix + o.receipts.topic,
          (topic, records) => kafka.send(topic, records),
          logger,
        )
      : undefined;
  }

  /** The start snapshot: the replay window's, and the newest heartbeat already in the log. */
  async startOffsets(topics: readonly string[]): Promise<TopicOffsets> {
    return this.newestHeartbeat.include(await this.replay.startOffsets(topics));
  }

  /**
   * The receipts topic read through the same group; returns the port the reader joins with,
   * whose every group consumer carries this instance's member info (user data, for the roster)
   * and fetches the receipts topic only while a receipt of ours waits (AckFetching).
   */
  wire(registry: BroadcastHandlerRegistry, startedAt: () => number): KafkaPort {
    const { options: o, kafka } = this;
    // Read like a broadcast topic; the gate consumes its records before any handler.
    if (o.receipts) registry.add(o.receipts.topic, () => undefined, 'receipts');
    return {
      admin: kafka.admin,
      about: () => kafka.about?.(),
      createGroupConsumer: (spec) =>
        kafka.createGroupConsumer({
          ...spec,
          userData: encodeMemberInfo(o.instanceId, startedAt(), o.receipts !== false),
          ...(this.receipts && { pauses: this.receipts.fetching }),
        }),
      send: (topic, records) => kafka.send(topic, records),
      disconnect: () => kafka.disconnect(),
    };
  }

  /**
   * The dispatcher's gate: receipts, schemas and targeting. The instance's service is its group
   * base name, known from the start: it must not depend on which group is held at the moment
   * a record is fetched (before the first group is adopted, or while moving to another).
   */
  gate(service: () => string): BroadcastGate {
    const o = this.options;
    return new BroadcastGate(
      this.receipts,
      this.schemas,
      () => ({ instanceId: o.instanceId, service: service() }),
      o.handlerTimeoutMs,
    );
  }

  /** The dispatcher's gate, and which heartbeat records were read from before the start. */
  dispatcherWiring(
    service: () => string,
  ): Pick<DispatcherWiring, 'gate' | 'heartbeatFromBeforeStart'> {
    return {
      gate: this.gate(service),
      heartbeatFromBeforeStart: (partition, offset) =>
        this.newestHeartbeat.fromBeforeStart(partition, offset),
    };
  }

  /** Stops what the features run on their own (receipts awaited); the roster stops with reading. */
  stop(): void {
    this.receipts?.stop();
  }

  /** Validation, targeting and receipts for the publisher; `reading`: whether acks can be seen. */
  publishing(reading: () => boolean): PublishFeatures {
    return new PublishFeatures({
      instanceId: this.options.instanceId,
      roster: this.roster,
      receipts: this.receipts,
      reading,
      logger: this.logger,
    });
  }
}
