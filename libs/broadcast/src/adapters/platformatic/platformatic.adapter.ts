import {
  Admin,
  Consumer,
  Producer,
  compatibilityPartitioner,
  type BaseOptions,
} from '@platformatic/kafka';
import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import type {
  GroupConsumerPort,
  GroupConsumerSpec,
  KafkaAdminPort,
  KafkaPortAbout,
  OutgoingRecord,
  RawOutgoingRecord,
} from '../../interfaces/kafka-port.interface.js';
import { BroadcastMessages } from '../../errors/broadcast.messages.js';
import { BroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import { rebalanceTimeoutMs, type AdapterOptions } from '../shared/adapter-types.js';
import {
  type AdapterPort,
  DeferredGroupConsumer,
  type MakeGroupConsumerClient,
} from '../shared/deferred-group-consumer.js';
import type { ConsumerOwner, GroupConsumerClient } from '../shared/group-consumer-lifecycle.js';
import { publishingOperation } from '../shared/kafka-operations.js';
import { guardedAdmin, PortClosure } from '../shared/port-closure.js';
import { RetiringProducer } from '../shared/retiring-producer.js';
import { UntilReachable } from '../shared/until-reachable.js';
import { PlatformaticAdmin } from './platformatic-admin.js';
import { toClientOptions } from './platformatic-client-options.js';
import { fetchRetryDelay } from './platformatic-fetch-leaders.js';
import { probeConnection } from './platformatic-connection-probe.js';
import { PlatformaticErrors } from './platformatic-errors.js';
import { bytesSerializers, toProducedHeaders, type Bytes } from './platformatic-serializers.js';
import { PlatformaticGroupConsumer } from './platformatic-group-consumer.js';
import { PlatformaticKip848Consumer } from './platformatic-kip848-consumer.js';
import { PlatformaticSharedConnections } from './platformatic-shared-connections.js';

/** acks = all: every in-sync replica has the record. */
const ACKS_ALL = -1;

/** The adapter's options: its bootstrap brokers as a list (the client takes no function). */
export type PlatformaticAdapterOptions = AdapterOptions & {
  kafka: AdapterOptions['kafka'] & { brokers: string[] };
};

/**
 * The @platformatic/kafka implementation of the engine's Kafka port, on the classic or the KIP-848
 * group protocol (kafka.groupProtocol). The registry row resolves a `kafka.brokers` function
 * into the list first.
 */
export class PlatformaticAdapter implements AdapterPort {
  readonly admin: KafkaAdminPort;
  private readonly base: BaseOptions;
  private readonly errors: PlatformaticErrors;
  private readonly admins: PlatformaticAdmin;
  /** The admin's connections, which the probe and the KIP-848 consumers borrow. */
  private readonly connections: PlatformaticSharedConnections;
  private readonly producer = new RetiringProducer(
    () => this.newProducer(),
    // Forced: a send still in flight (its broker stopped answering) must not keep it open.
    (producer) => producer.close(true),
  );
  /** Set by disconnect(), for good: every later call is refused, no client connects again. */
  private readonly closure = new PortClosure();
  private protocol: Promise<'classic' | 'consumer'> | undefined;
  /** The protocol once chosen, for about(). */
  private chosenProtocol: 'classic' | 'consumer' | undefined;

  constructor(
    private readonly options: PlatformaticAdapterOptions,
    private readonly logger: BroadcastLogger,
    /** A test hook, never on the port: each group consumer's start steps ('connect', …). */
    private readonly probe?: (step: string) => void,
  ) {
    this.base = toClientOptions(options.kafka, options.kafka.brokers);
    this.errors = new PlatformaticErrors(options.kafka);
    const reachable = new UntilReachable(this.errors, {
      kafka: options.kafka,
      startupTimeoutMs: options.startupTimeoutMs ?? 60_000,
      logger,
      backoff: { baseMs: 200, capMs: 2_000 },
    });
    // The engine's own client id, not a suffixed one: the KIP-848 consumer's heartbeats travel on
    // the admin's connections (platformatic-shared-connections.ts), and the broker records the
    // heartbeat's header client id as the member's, which operators (the CLI's pool, quotas by
    // client id) expect to be kafka.clientId.
    const admin = new Admin({ ...this.base });
    this.connections = new PlatformaticSharedConnections(admin, () => this.admins.brokerApis());
    this.admins = new PlatformaticAdmin(
      admin,
      options.topics,
      this.errors,
      reachable,
      async () => (await this.connections.probe()) ?? probeConnection(this.base),
    );
    this.admin = guardedAdmin(this.admins, this.closure, () => this.admins.disconnect());
  }

  about(): KafkaPortAbout {
    return { client: 'platformatic', groupProtocol: this.chosenProtocol };
  }

  /** Under KIP-848 the broker enforces the instance id its consumers send (PORT-CONTRACT.md). */
  async claimsByInstanceId(groupId: string): Promise<boolean> {
    return (await this.groupProtocol(groupId)) === 'consumer';
  }

  createGroupConsumer(spec: GroupConsumerSpec): GroupConsumerPort {
    return new DeferredGroupConsumer(spec, this.groupConsumerClient, {
      logger: this.logger,
      probe: this.probe,
      closeBoundMs: rebalanceTimeoutMs(this.options.consumer),
      closure: this.closure,
    });
  }

  /** The protocol is chosen first (kafka.groupProtocol 'auto' asks the broker once). */
  readonly groupConsumerClient: MakeGroupConsumerClient = async (spec, owner) => {
    this.closure.refuse();
    const protocol = await this.groupProtocol(spec.groupId);
    this.closure.refuse();
    return protocol === 'consumer'
      ? this.kip848Consumer(spec, owner)
      : this.classicConsumer(spec, owner);
  };

  /**
   * kafka.groupProtocol resolved once: 'auto' (the default) is KIP-848 when the broker offers it,
   * else classic; 'consumer' on a broker without it is a startup error naming the option.
   */
  groupProtocol(groupId: string): Promise<'classic' | 'consumer'> {
    const wanted = this.options.kafka.groupProtocol ?? 'auto';
    this.protocol ??= (async () => {
      if (wanted === 'classic') return 'classic';
      const offered = await this.admins.offersConsumerProtocol(groupId);
      if (!offered && wanted === 'consumer')
        throw new BroadcastStartupError(
          'kafka.groupProtocol',
          BroadcastMessages.groupProtocolUnsupported(this.base.bootstrapBrokers.join(',')),
        );
      if (offered) this.admins.useConsumerProtocol();
      return offered ? 'consumer' : 'classic';
    })().then((chosen) => (this.chosenProtocol = chosen));
    // A broker not reachable yet is asked again at the next start.
    this.protocol.catch(() => (this.protocol = undefined));
    return this.protocol;
  }

  private consumerClient(groupId: string): Consumer {
    const { consumer } = this.options;
    return new Consumer({
      ...this.base,
      // A fetch whose partition leader moved is retried at once, on the new leader.
      retryDelay: fetchRetryDelay(this.base.retryDelay),
      groupId,
      // Positions belong to the engine: nothing is ever committed.
      autocommit: false,
      sessionTimeout: consumer.sessionTimeoutMs,
      rebalanceTimeout: rebalanceTimeoutMs(consumer),
      heartbeatInterval: consumer.heartbeatIntervalMs,
      maxWaitTime: consumer.maxWaitTimeMs,
      metadataMaxAge: consumer.metadataMaxAgeMs,
      autocreateTopics: false,
    });
  }

  private classicConsumer(spec: GroupConsumerSpec, owner: ConsumerOwner): GroupConsumerClient {
    return new PlatformaticGroupConsumer(spec, {
      make: () => this.consumerClient(spec.groupId),
      timings: this.options.consumer,
      logger: this.logger,
      errors: this.errors,
      owner,
    });
  }

  private kip848Consumer(spec: GroupConsumerSpec, owner: ConsumerOwner): GroupConsumerClient {
    return new PlatformaticKip848Consumer(spec, {
      // The client only fetches: it never joins (its KIP-848 join runs only inside its stream).
      // Its heartbeats and metadata go over the admin's connections, its fetches over its own.
      make: () => {
        const consumer = this.consumerClient(spec.groupId);
        this.connections.lend(consumer);
        return consumer;
      },
      pool: (consumer) => this.connections.pool(consumer),
      cutShared: () => this.connections.cut(),
      coordinatorOf: (groupId, fresh) => this.admins.coordinatorOf(groupId, fresh),
      timings: this.options.consumer,
      logger: this.logger,
      errors: this.errors,
      owner,
      brokers: this.base.bootstrapBrokers.join(','),
    });
  }

  send(topic: string, records: (OutgoingRecord | RawOutgoingRecord)[]): Promise<void> {
    return this.closure.run(async () => {
      try {
        // A failed send retires its producer (RetiringProducer).
        await this.producer.send((producer) =>
          producer.send({
            acks: ACKS_ALL,
            messages: records.map((r) => ({
              topic,
              key: r.key ?? undefined,
              value: r.value ?? undefined,
              ...(r.headers && { headers: toProducedHeaders(r.headers) }),
            })),
          }),
        );
      } catch (error) {
        throw this.errors.fatal(error, publishingOperation(topic)) ?? error;
      }
    });
  }

  private newProducer(): Producer<Bytes, Bytes, Bytes, Bytes> {
    return new Producer({
      ...this.base,
      clientId: `${this.base.clientId}-producer`,
      serializers: bytesSerializers,
      // kafkajs's (and Java's) partition for a key, so both adapters put a key in one partition.
      partitioner: compatibilityPartitioner,
      autocreateTopics: true,
      // A Produce whose answer was lost is sent again; without a producer id and sequence
      // numbers the broker writes it twice and every instance handles one publish twice. The
      // retries stay bounded (the client makes an idempotent producer with 0 or 1 retries retry
      // forever, and publish() with it).
      idempotent: true,
      retries: Math.max(2, typeof this.base.retries === 'number' ? this.base.retries : 3),
    });
  }

  /**
   * Disconnects for good: later calls are refused (clientClosedError) instead of opening a new
   * client; sends in flight may finish (bounded), then every client closes.
   */
  disconnect(): Promise<void> {
    return this.closure.close(async () => {
      await Promise.all([
        this.producer.closeForGood(),
        this.admins.disconnect().catch(() => undefined),
      ]);
    });
  }
}
