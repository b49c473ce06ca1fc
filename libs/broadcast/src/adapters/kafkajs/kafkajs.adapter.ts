import kafkajs, { type Kafka, type KafkaConfig, type Producer } from 'kafkajs';
import { BroadcastMessages } from '../../errors/broadcast.messages.js';
import { BroadcastOptionsError } from '../../errors/broadcast-options.error.js';
import { BroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import { errorMessage } from '../../shared/async.utils.js';
import type {
  BroadcastKafkaLogLevel,
  BroadcastKafkaOptions,
  BroadcastOauthBearerSaslOptions,
} from '../../interfaces/broadcast-kafka-options.interface.js';
import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import type {
  GroupConsumerPort,
  GroupConsumerSpec,
  KafkaPort,
  KafkaPortAbout,
  OutgoingRecord,
  RawOutgoingRecord,
} from '../../interfaces/kafka-port.interface.js';
import { publishingOperation } from '../shared/kafka-operations.js';
import { RetiringProducer } from '../shared/retiring-producer.js';
import { KafkajsAdmin } from './kafkajs-admin.js';
import { createKafkajsClient } from './kafkajs-client.js';
import { KafkajsGroupConsumer } from './kafkajs-group-consumer.js';
import type { AdapterOptions } from '../shared/adapter-types.js';
import { coordinatorErrorType } from './kafkajs-coordinator-probe.js';
import { KafkajsErrorClassifier } from './kafkajs-errors.js';
import { createLogCreator, logLevel } from './kafkajs-log.js';

/** The kafkajs implementation of the engine's Kafka port. */
export class KafkajsAdapter implements KafkaPort {
  readonly admin: KafkajsAdmin;
  private readonly kafka: Kafka;
  private readonly producer = new RetiringProducer<Promise<Producer>>(
    () => this.connectedProducer(),
    (connecting) => connecting.then((p) => p.disconnect()),
    // One at a time: kafkajs numbers a queued send only when it goes out (RetiringProducer).
    true,
  );
  private readonly errors: KafkajsErrorClassifier;
  /** Set by disconnect(), for good: the engine stopped, so no client may connect any more. */
  private closed = false;

  constructor(
    private readonly options: AdapterOptions,
    private readonly logger: BroadcastLogger,
    /** A test hook, never on the port: each group consumer's start steps ('connect', …). */
    private readonly probe?: (step: string) => void,
  ) {
    // kafkajs cannot speak KIP-848; 'auto' means classic here.
    if (options.kafka.groupProtocol === 'consumer')
      throw new BroadcastOptionsError(
        'kafka.groupProtocol',
        BroadcastMessages.kafkajsGroupProtocols,
        'consumer',
      );
    const config = toKafkaConfig(options.kafka);
    this.kafka = createKafkajsClient({
      logLevel: LOG_LEVELS[options.kafka.logLevel ?? 'warn'],
      logCreator: createLogCreator(logger, (message) => this.errors.noteConnectionError(message)),
      ...config,
    });
    this.errors = new KafkajsErrorClassifier(
      options.kafka,
      options.startupTimeoutMs ?? 60_000,
      (groupId) => coordinatorErrorType(config, groupId),
    );
    this.admin = new KafkajsAdmin(this.kafka, options.topics, this.errors);
  }

  /** kafkajs speaks only the classic group protocol. */
  about(): KafkaPortAbout {
    return { client: 'kafkajs', groupProtocol: 'classic' };
  }

  createGroupConsumer(spec: GroupConsumerSpec): GroupConsumerPort {
    if (this.closed) throw new Error(BroadcastMessages.kafkaClientClosed());
    return new KafkajsGroupConsumer(
      this.kafka,
      spec,
      this.options.consumer,
      this.logger,
      this.errors,
      this.probe,
    );
  }

  async send(topic: string, records: (OutgoingRecord | RawOutgoingRecord)[]): Promise<void> {
    if (this.closed) throw new Error(BroadcastMessages.kafkaClientClosed());
    // A failed send retires its producer (RetiringProducer); that also replaces a client whose
    // connections broke and stay stuck ("Broker not connected"), and one whose connect failed.
    const sent = this.producer.send(async (connecting) => {
      const producer = await connecting;
      await producer.send({ topic, acks: -1, messages: records });
    });
    try {
      await sent;
    } catch (error) {
      throw this.errors.fatal(error, publishingOperation(topic)) ?? error;
    } finally {
      // A send under way during disconnect() may have reconnected a broker (kafkajs retries).
      if (this.closed) await this.producer.closeCurrent();
    }
  }

  /** Disconnects for good: later sends and consumers are refused instead of connecting. */
  async disconnect(): Promise<void> {
    this.closed = true;
    await Promise.all([
      this.producer.closeCurrent(),
      this.admin.disconnect().catch(() => undefined),
    ]);
  }

  private connectedProducer(): Promise<Producer> {
    const producer = this.kafka.producer({
      createPartitioner: kafkajs.Partitioners.DefaultPartitioner,
      allowAutoTopicCreation: true,
      // A Produce whose answer was lost is sent again; without a producer id and sequence
      // numbers the broker writes it twice and every instance handles one publish twice.
      // One request in flight keeps the sequences in order. The retries stay bounded as the
      // client's own (kafkajs would retry an idempotent send forever, and publish() with it),
      // at least one (kafkajs refuses an idempotent producer that may not retry).
      idempotent: true,
      maxInFlightRequests: 1,
      retry: {
        retries: Math.max(1, this.options.kafka.retry?.retries ?? this.options.kafka.retries ?? 5),
      },
    });
    const connecting = producer.connect().then(() => producer);
    // A failed connect must not leave the half-made client behind (the send that awaited it
    // fails and retires it).
    connecting.catch(() => producer.disconnect().catch(() => undefined));
    return connecting;
  }
}

const LOG_LEVELS: Record<BroadcastKafkaLogLevel, kafkajs.logLevel> = {
  nothing: logLevel.NOTHING,
  error: logLevel.ERROR,
  warn: logLevel.WARN,
  info: logLevel.INFO,
  debug: logLevel.DEBUG,
};

/** Maps the library's own Kafka options to kafkajs's client configuration. */
export function toKafkaConfig(o: BroadcastKafkaOptions): KafkaConfig {
  const retries = o.retry?.retries ?? o.retries;
  const retry = {
    ...(retries !== undefined && { retries }),
    ...(o.retry?.initialRetryTimeMs !== undefined && {
      initialRetryTime: o.retry.initialRetryTimeMs,
    }),
    ...(o.retry?.maxRetryTimeMs !== undefined && { maxRetryTime: o.retry.maxRetryTimeMs }),
  };
  return {
    brokers: o.brokers,
    clientId: o.clientId ?? 'nestjs-kafka-broadcast',
    ...(o.ssl !== undefined && { ssl: o.ssl }),
    // kafkajs takes both shapes as they are: its oauthbearer calls the provider on each login.
    ...(o.sasl && {
      sasl: (o.sasl.mechanism === 'oauthbearer'
        ? { ...o.sasl, oauthBearerProvider: guardedProvider(o.sasl.oauthBearerProvider) }
        : { ...o.sasl }) as KafkaConfig['sasl'],
    }),
    ...(o.connectionTimeoutMs !== undefined && { connectionTimeout: o.connectionTimeoutMs }),
    ...(o.requestTimeoutMs !== undefined && { requestTimeout: o.requestTimeoutMs }),
    ...(Object.keys(retry).length > 0 && { retry }),
  };
}

/**
 * kafkajs hands a failing provider's error on bare (a rejected start with just its message):
 * it becomes the startup error naming the option.
 */
function guardedProvider(
  provider: BroadcastOauthBearerSaslOptions['oauthBearerProvider'],
): BroadcastOauthBearerSaslOptions['oauthBearerProvider'] {
  return async () => {
    try {
      return await provider();
    } catch (error) {
      throw new BroadcastStartupError(
        'kafka.sasl.oauthBearerProvider',
        BroadcastMessages.tokenProviderFailed(errorMessage(error)),
      );
    }
  };
}
