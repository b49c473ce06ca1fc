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
  KafkaPort,
  KafkaPortAbout,
  OutgoingRecord,
  RawOutgoingRecord,
} from '../../interfaces/kafka-port.interface.js';
import { BroadcastMessages } from '../../errors/broadcast.messages.js';
import { BroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import { publishingOperation } from '../shared/kafka-operations.js';
import { RetiringProducer } from '../shared/retiring-producer.js';
import { PlatformaticAdmin } from './platformatic-admin.js';
import { toClientOptions } from './platformatic-client-options.js';
import { probeConnection } from './platformatic-connection-probe.js';
import { PlatformaticErrors } from './platformatic-errors.js';
import { bytesSerializers, toProducedHeaders, type Bytes } from './platformatic-serializers.js';
import { PlatformaticGroupConsumer } from './platformatic-group-consumer.js';
import type { AdapterOptions } from '../shared/adapter-types.js';
import { PlatformaticKip848Consumer } from './platformatic-kip848-consumer.js';
import { PlatformaticProtocolChoice } from './platformatic-protocol-choice.js';

/** acks = all: every in-sync replica has the record. */
const ACKS_ALL = -1;

/**
 * The @platformatic/kafka implementation of the engine's Kafka port, on the classic or the KIP-848
 * group protocol (kafka.groupProtocol).
 * `brokers` are the resolved bootstrap brokers (the client takes a list, not a function).
 */
export class PlatformaticAdapter implements KafkaPort {
  readonly admin: PlatformaticAdmin;
  private readonly base: BaseOptions;
  private readonly errors: PlatformaticErrors;
  private readonly producer = new RetiringProducer(
    () => this.newProducer(),
    (producer) => producer.close(),
  );
  private protocol: Promise<'classic' | 'consumer'> | undefined;
  /** The protocol once chosen, for about(). */
  private chosenProtocol: 'classic' | 'consumer' | undefined;

  constructor(
    private readonly options: AdapterOptions,
    brokers: string[],
    private readonly logger: BroadcastLogger,
    /** A test hook, never on the port: each group consumer's start steps ('connect', …). */
    private readonly probe?: (step: string) => void,
  ) {
    this.base = toClientOptions(options.kafka, brokers);
    this.errors = new PlatformaticErrors(options.kafka, options.startupTimeoutMs ?? 60_000);
    this.admin = new PlatformaticAdmin(
      new Admin({ ...this.base, clientId: `${this.base.clientId}-admin` }),
      options.topics,
      this.errors,
      () => probeConnection(this.base),
    );
  }

  about(): KafkaPortAbout {
    return { client: 'platformatic', groupProtocol: this.chosenProtocol };
  }

  createGroupConsumer(spec: GroupConsumerSpec): GroupConsumerPort {
    return new PlatformaticProtocolChoice(spec.groupId, async () =>
      (await this.groupProtocol(spec.groupId)) === 'consumer'
        ? this.kip848Consumer(spec)
        : this.classicConsumer(spec),
    );
  }

  /**
   * kafka.groupProtocol resolved once: 'auto' (the default) is KIP-848 when the broker offers it,
   * else classic; 'consumer' on a broker without it is a startup error naming the option.
   */
  groupProtocol(groupId: string): Promise<'classic' | 'consumer'> {
    const wanted = this.options.kafka.groupProtocol ?? 'auto';
    this.protocol ??= (async () => {
      if (wanted === 'classic') return 'classic';
      const offered = await this.admin.offersConsumerProtocol(groupId);
      if (!offered && wanted === 'consumer')
        throw new BroadcastStartupError(
          'kafka.groupProtocol',
          BroadcastMessages.groupProtocolUnsupported(this.base.bootstrapBrokers.join(',')),
        );
      if (offered) this.admin.useConsumerProtocol();
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
      groupId,
      // Positions belong to the engine: nothing is ever committed.
      autocommit: false,
      sessionTimeout: consumer.sessionTimeoutMs,
      rebalanceTimeout: Math.max(consumer.sessionTimeoutMs, 10_000),
      heartbeatInterval: consumer.heartbeatIntervalMs,
      maxWaitTime: consumer.maxWaitTimeMs,
      metadataMaxAge: consumer.metadataMaxAgeMs,
      autocreateTopics: false,
    });
  }

  private classicConsumer(spec: GroupConsumerSpec): GroupConsumerPort {
    return new PlatformaticGroupConsumer(
      () => this.consumerClient(spec.groupId),
      spec,
      this.options.consumer,
      this.logger,
      this.errors,
      this.probe,
    );
  }

  private kip848Consumer(spec: GroupConsumerSpec): GroupConsumerPort {
    return new PlatformaticKip848Consumer(spec, {
      // The client only fetches: it never joins (its KIP-848 join runs only inside its stream).
      make: () => this.consumerClient(spec.groupId),
      coordinatorOf: (groupId, fresh) => this.admin.coordinatorOf(groupId, fresh),
      timings: this.options.consumer,
      logger: this.logger,
      errors: this.errors,
      probe: this.probe,
      brokers: this.base.bootstrapBrokers.join(','),
    });
  }

  async send(topic: string, records: (OutgoingRecord | RawOutgoingRecord)[]): Promise<void> {
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

  async disconnect(): Promise<void> {
    await Promise.all([
      this.producer.closeCurrent(),
      this.admin.disconnect().catch(() => undefined),
    ]);
  }
}
