import type {
  KafkaPortAbout,
  GroupConsumerPort,
  GroupConsumerSpec,
  KafkaAdminPort,
  KafkaPort,
  OutgoingRecord,
} from '../interfaces/kafka-port.interface.js';
import type { ResolvedBroadcastOptions } from '../core/options/broadcast-options.resolver.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import { loadKafkaPort, preloadKafkaClient } from './kafka-client.loader.js';

/**
 * A KafkaPort whose adapter is loaded on first use: the client library is imported then (see
 * kafka-client.loader.ts), so an app installs only the client it uses, and a missing one fails
 * the start, not the import of the module. Every call waits for the load and forwards.
 */
export class LazyKafkaPort implements KafkaPort {
  /**
   * The adapter of the options' client (kafka-client.loader.ts), its import begun by warm();
   * `probe`, the engine's test hook, goes to the adapter's constructor.
   */
  static forOptions(
    o: ResolvedBroadcastOptions,
    logger: BroadcastLogger,
    probe?: (step: string) => void,
  ): LazyKafkaPort {
    return new LazyKafkaPort(
      () => loadKafkaPort(o, logger, undefined, probe),
      () => preloadKafkaClient(o.kafka.client),
    );
  }

  readonly admin: KafkaAdminPort;
  private port: Promise<KafkaPort> | undefined;
  /** The adapter once loaded, for about(), which cannot wait. */
  private loadedPort: KafkaPort | undefined;

  private preloading: Promise<unknown> | undefined;

  /**
   * @param preload begins importing the client without making it (see warm); the default does
   *   nothing.
   */
  constructor(
    private readonly load: () => Promise<KafkaPort>,
    private readonly preload: () => Promise<unknown> = async () => undefined,
  ) {
    const admin = async () => (await this.loaded()).admin;
    this.admin = {
      ensureTopics: async (topics, signal) => (await admin()).ensureTopics(topics, signal),
      deleteGroup: async (groupId, deadline, signal) =>
        (await admin()).deleteGroup(groupId, deadline, signal),
      describeGroup: async (groupId) => (await admin()).describeGroup(groupId),
      latestOffsets: async (topics) => (await admin()).latestOffsets(topics),
      offsetBounds: async (topic) => (await admin()).offsetBounds(topic),
      offsetsForTimestamp: async (topic, timestamp) =>
        (await admin()).offsetsForTimestamp(topic, timestamp),
      liveMembers: async (groupPrefix) => (await admin()).liveMembers(groupPrefix),
      occupiedGroups: async (groupPrefix) => (await admin()).occupiedGroups(groupPrefix),
      disconnect: async () => (this.port ? (await this.loaded()).admin.disconnect() : undefined),
    };
  }

  /**
   * Begins importing the client in the background, once (the engine calls it when it is built
   * with no port handed in), so the import no longer falls inside the first start() when the app
   * does other work before it. Only the adapter module and its client: no client is made and no
   * socket opened, and a failed import is left for start() to report (never a rejection here).
   * Returns this port.
   */
  warm(): this {
    if (!this.port) this.preloading ??= this.preload();
    return this;
  }

  createGroupConsumer(spec: GroupConsumerSpec): GroupConsumerPort {
    return new LazyGroupConsumer(spec.groupId, async () =>
      (await this.loaded()).createGroupConsumer(spec),
    );
  }

  about(): KafkaPortAbout | undefined {
    return this.loadedPort?.about?.();
  }

  async send(topic: string, records: OutgoingRecord[]): Promise<void> {
    return (await this.loaded()).send(topic, records);
  }

  async disconnect(): Promise<void> {
    // Never loaded: nothing to close (and nothing to import now).
    if (!this.port) return;
    await (await this.port.catch(() => undefined))?.disconnect();
  }

  private loaded(): Promise<KafkaPort> {
    this.port ??= this.load().then((port) => (this.loadedPort = port));
    return this.port;
  }
}

/** A group consumer made once its adapter is loaded; stop() during the load still stops it. */
class LazyGroupConsumer implements GroupConsumerPort {
  private consumer: GroupConsumerPort | undefined;
  private creating: Promise<GroupConsumerPort> | undefined;
  private stopRequested = false;

  constructor(
    readonly groupId: string,
    private readonly create: () => Promise<GroupConsumerPort>,
  ) {}

  async start(): Promise<void> {
    this.creating ??= this.create().then((consumer) => (this.consumer = consumer));
    const consumer = await this.creating;
    if (!this.stopRequested) await consumer.start();
  }

  seek(topic: string, partition: number, offset: string): void {
    // Seeks come from the join, after start() made the consumer.
    this.consumer?.seek(topic, partition, offset);
  }

  async stop(): Promise<void> {
    this.stopRequested = true;
    const consumer = await this.creating?.catch(() => undefined);
    await consumer?.stop();
  }
}
