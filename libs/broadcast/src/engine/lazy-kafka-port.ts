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
import { rebalanceTimeoutMs } from '../adapters/shared/adapter-types.js';
import {
  type AdapterPort,
  DeferredGroupConsumer,
} from '../adapters/shared/deferred-group-consumer.js';
import type { LifecycleDeps } from '../adapters/shared/group-consumer-lifecycle.js';
import { guardedAdmin, PortClosure } from '../adapters/shared/port-closure.js';
import { logStartOffsets } from '../shared/log-start-offsets.js';
import { loadKafkaPort, preloadKafkaClient } from './kafka-client.loader.js';

const SILENT: BroadcastLogger = {
  log: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/**
 * A KafkaPort whose adapter is loaded on first use: the client library is imported then (see
 * kafka-client.loader.ts), so an app installs only the client it uses, and a missing one fails
 * the start, not the import of the module. Every call waits for the load and forwards; its group
 * consumers are the adapters' one deferred consumer, made once the adapter is loaded. Once
 * disconnect() began every call is refused as the adapters refuse it, and nothing is loaded any
 * more.
 */
export class LazyKafkaPort implements KafkaPort {
  /**
   * The adapter of the options' client (kafka-client.loader.ts), its import begun by warm();
   * `probe`, the engine's test hook, goes to the group consumers' lifecycles.
   */
  static forOptions(
    o: ResolvedBroadcastOptions,
    logger: BroadcastLogger,
    probe?: (step: string) => void,
  ): LazyKafkaPort {
    return new LazyKafkaPort(
      () => loadKafkaPort(o, logger),
      () => preloadKafkaClient(o.kafka.client),
      { logger, probe, closeBoundMs: rebalanceTimeoutMs(o.consumer) },
    );
  }

  readonly admin: KafkaAdminPort;
  private port: Promise<AdapterPort> | undefined;
  /** The adapter once loaded, for about(), which cannot wait. */
  private loadedPort: AdapterPort | undefined;
  /** The adapter waits for the calls in flight when it closes: this port does not wait again. */
  private readonly closure = new PortClosure(false);

  private preloading: Promise<unknown> | undefined;

  /**
   * @param preload begins importing the client without making it (see warm); the default does
   *   nothing.
   * @param consumers what the group consumers' lifecycles are made with.
   */
  constructor(
    private readonly load: () => Promise<AdapterPort>,
    private readonly preload: () => Promise<unknown> = async () => undefined,
    private readonly consumers: LifecycleDeps = { logger: SILENT },
  ) {
    const admin = async () => (await this.loaded()).admin;
    this.admin = guardedAdmin(
      {
        ensureTopics: async (topics, signal) => (await admin()).ensureTopics(topics, signal),
        deleteGroup: async (groupId, deadline, signal) =>
          (await admin()).deleteGroup(groupId, deadline, signal),
        describeGroup: async (groupId) => (await admin()).describeGroup(groupId),
        latestOffsets: async (topics) => (await admin()).latestOffsets(topics),
        offsetBounds: async (topic) => (await admin()).offsetBounds(topic),
        logStartOffsets: async (topic) => logStartOffsets(await admin(), topic),
        offsetsForTimestamp: async (topic, timestamp) =>
          (await admin()).offsetsForTimestamp(topic, timestamp),
        liveMembers: async (groupPrefix) => (await admin()).liveMembers(groupPrefix),
        occupiedGroups: async (groupPrefix) => (await admin()).occupiedGroups(groupPrefix),
        disconnect: async () => undefined,
      },
      this.closure,
      async () => (this.port ? (await this.loaded()).admin.disconnect() : undefined),
    );
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
    return new DeferredGroupConsumer(
      spec,
      async (s, owner) => (await this.loaded()).groupConsumerClient(s, owner),
      { ...this.consumers, closure: this.closure },
    );
  }

  about(): KafkaPortAbout | undefined {
    return this.loadedPort?.about?.();
  }

  claimsByInstanceId(groupId: string): Promise<boolean> {
    return this.closure.run(
      async () => (await (await this.loaded()).claimsByInstanceId?.(groupId)) ?? false,
    );
  }

  send(topic: string, records: OutgoingRecord[]): Promise<void> {
    return this.closure.run(async () => (await this.loaded()).send(topic, records));
  }

  /** Disconnects for good; a port never loaded has nothing to close (and imports nothing now). */
  disconnect(): Promise<void> {
    return this.closure.close(async () => {
      if (!this.port) return;
      await (await this.port.catch(() => undefined))?.disconnect();
    });
  }

  private loaded(): Promise<AdapterPort> {
    this.port ??= this.load().then((port) => (this.loadedPort = port));
    return this.port;
  }
}
