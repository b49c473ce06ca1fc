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
  KafkaAdminPort,
  KafkaPortAbout,
  OutgoingRecord,
  RawOutgoingRecord,
} from '../../interfaces/kafka-port.interface.js';
import { rebalanceTimeoutMs, type AdapterOptions } from '../shared/adapter-types.js';
import {
  type AdapterPort,
  DeferredGroupConsumer,
  type MakeGroupConsumerClient,
} from '../shared/deferred-group-consumer.js';
import { publishingOperation } from '../shared/kafka-operations.js';
import { clientClosedError, guardedAdmin, PortClosure } from '../shared/port-closure.js';
import { RetiringProducer } from '../shared/retiring-producer.js';
import { UntilReachable } from '../shared/until-reachable.js';
import { KafkajsAdmin } from './kafkajs-admin.js';
import { createKafkajsClient } from './kafkajs-client.js';
import { coordinatorErrorType } from './kafkajs-coordinator-probe.js';
import { KafkajsEarlierMembers } from './kafkajs-earlier-members.js';
import { KafkajsErrors } from './kafkajs-errors.js';
import { KafkajsGroupConsumer } from './kafkajs-group-consumer.js';
import { createLogCreator, logLevel } from './kafkajs-log.js';
import { cutRequests, notRetriable, withOwnCluster } from './kafkajs-own-cluster.js';

/** A producer of the adapter: its connect, and its own Cluster (for cutRequests). */
interface KafkajsProducer {
  connected: Promise<Producer>;
  cluster: unknown;
}

/** The kafkajs implementation of the engine's Kafka port. */
export class KafkajsAdapter implements AdapterPort {
  readonly admin: KafkaAdminPort;
  private readonly kafka: Kafka;
  private readonly errors: KafkajsErrors;
  private readonly admins: KafkajsAdmin;
  private readonly producer = new RetiringProducer<KafkajsProducer>(
    () => this.connectedProducer(),
    (made) => this.closeProducer(made),
    // One at a time: kafkajs numbers a queued send only when it goes out (RetiringProducer).
    true,
  );
  /** Set by disconnect(), for good: every later call is refused, no client connects again. */
  private readonly closure = new PortClosure();
  /** Member ids handed to this port's consumers, until left (see kafkajs-earlier-members.ts). */
  private readonly earlierMembers = new KafkajsEarlierMembers();

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
    this.errors = new KafkajsErrors(options.kafka, (groupId) =>
      coordinatorErrorType(config, groupId),
    );
    const reachable = new UntilReachable(this.errors, {
      kafka: options.kafka,
      startupTimeoutMs: options.startupTimeoutMs ?? 60_000,
      logger,
      backoff: { baseMs: 500, capMs: 5_000 },
    });
    this.admins = new KafkajsAdmin(
      this.kafka,
      options.topics,
      this.errors,
      reachable,
      options.consumer.metadataMaxAgeMs,
    );
    this.admin = guardedAdmin(this.admins, this.closure, () => this.admins.disconnect());
  }

  /** kafkajs speaks only the classic group protocol. */
  about(): KafkaPortAbout {
    return { client: 'kafkajs', groupProtocol: 'classic' };
  }

  createGroupConsumer(spec: GroupConsumerSpec): GroupConsumerPort {
    return new DeferredGroupConsumer(spec, this.groupConsumerClient, {
      logger: this.logger,
      probe: this.probe,
      closeBoundMs: rebalanceTimeoutMs(this.options.consumer),
      closure: this.closure,
    });
  }

  readonly groupConsumerClient: MakeGroupConsumerClient = (spec, owner) => {
    this.closure.refuse();
    return new KafkajsGroupConsumer(spec, {
      kafka: this.kafka,
      timings: this.options.consumer,
      logger: this.logger,
      errors: this.errors,
      owner,
      earlierMembers: this.earlierMembers,
    });
  };

  send(topic: string, records: (OutgoingRecord | RawOutgoingRecord)[]): Promise<void> {
    return this.closure.run(async () => {
      try {
        // A failed send retires its producer (RetiringProducer); that also replaces a client
        // whose connections broke and stay stuck ("Broker not connected"), and one whose connect
        // failed.
        await this.producer.send(async ({ connected }) => {
          const producer = await connected;
          await producer.send({ topic, acks: -1, messages: records });
        });
      } catch (error) {
        throw this.errors.fatal(error, publishingOperation(topic)) ?? error;
      }
    });
  }

  /**
   * Disconnects for good: later calls are refused (clientClosedError) instead of connecting;
   * sends in flight may finish (bounded), then every client closes, its requests cut.
   */
  disconnect(): Promise<void> {
    return this.closure.close(async () => {
      await Promise.all([
        this.producer.closeForGood(),
        this.admins.disconnect().catch(() => undefined),
      ]);
    });
  }

  private connectedProducer(): KafkajsProducer {
    const { client: producer, cluster } = withOwnCluster(this.kafka, () =>
      this.kafka.producer({
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
          retries: Math.max(
            1,
            this.options.kafka.retry?.retries ?? this.options.kafka.retries ?? 5,
          ),
        },
      }),
    );
    const connected = producer.connect().then(() => producer);
    // A failed connect must not leave the half-made client behind (the send that awaited it
    // fails and retires it).
    connected.catch(() => producer.disconnect().catch(() => undefined));
    return { connected, cluster };
  }

  /** What is still in flight is cut (kafkajs's disconnect would wait for it), then it closes. */
  private async closeProducer({ connected, cluster }: KafkajsProducer): Promise<void> {
    cutRequests(cluster, notRetriable(clientClosedError()));
    await (await connected.catch(() => undefined))?.disconnect();
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
