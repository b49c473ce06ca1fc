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
import { guardedAdmin, PortClosure } from '../shared/port-closure.js';
import { RetiringProducer } from '../shared/retiring-producer.js';
import { UntilReachable } from '../shared/until-reachable.js';
import { ConfluentAdmin } from './confluent-admin.js';
import { toRdkafkaConfig, type RdkafkaConfig } from './confluent-config.js';
import { ConfluentDescribeHelper } from './confluent-describe-helper.js';
import { ConfluentErrors } from './confluent-errors.js';
import { ConfluentTokens } from './confluent-oauth-tokens.js';
import { AdminTokenGate } from './confluent-admin-token-gate.js';
import { ConfluentGroupConsumer } from './confluent-group-consumer.js';
import { AdminClient } from './confluent-library.js';
import { ConfluentProducer } from './confluent-producer.js';
import { toProducedHeaders } from './confluent-records.js';

/** The adapter's options: its bootstrap brokers as a list (librdkafka takes no function). */
export type ConfluentAdapterOptions = AdapterOptions & {
  kafka: AdapterOptions['kafka'] & { brokers: string[] };
};

/** An admin request's own timeout when kafka.requestTimeoutMs is not set. */
const ADMIN_TIMEOUT_MS = 5_000;

/**
 * The @confluentinc/kafka-javascript implementation of the engine's Kafka port (librdkafka's
 * native API), on the classic or the KIP-848 group protocol (kafka.groupProtocol; 'auto' is
 * classic here until the KIP-848 facts are proven on this client).
 */
export class ConfluentAdapter implements AdapterPort {
  readonly admin: KafkaAdminPort;
  private readonly base: RdkafkaConfig;
  private readonly errors: ConfluentErrors;
  /** SASL/OAUTHBEARER only: the provider's tokens, for every client this adapter makes. */
  private readonly tokens: ConfluentTokens | undefined;
  private readonly admins: ConfluentAdmin;
  private readonly protocol: 'classic' | 'consumer';
  private readonly producer = new RetiringProducer(
    () => new ConfluentProducer(this.base, this.tokens),
    (producer) => producer.close(),
  );
  /** Set by disconnect(), for good: every later call is refused, no client connects again. */
  private readonly closure = new PortClosure();

  constructor(
    private readonly options: ConfluentAdapterOptions,
    private readonly logger: BroadcastLogger,
    /** A test hook, never on the port: each group consumer's start steps ('connect', …). */
    private readonly probe?: (step: string) => void,
  ) {
    this.base = toRdkafkaConfig(options.kafka, options.kafka.brokers);
    this.errors = new ConfluentErrors(options.kafka);
    this.tokens = ConfluentTokens.of(options.kafka.sasl, (failure) =>
      this.errors.noteToken(failure),
    );
    this.protocol = options.kafka.groupProtocol === 'consumer' ? 'consumer' : 'classic';
    const reachable = new UntilReachable(this.errors, {
      kafka: options.kafka,
      startupTimeoutMs: options.startupTimeoutMs ?? 60_000,
      logger,
      backoff: { baseMs: 200, capMs: 2_000 },
    });
    const adminConfig = { ...this.base, 'client.id': `${this.base['client.id']}-admin` };
    const timeoutMs = options.kafka.requestTimeoutMs ?? ADMIN_TIMEOUT_MS;
    const gate = this.tokens && new AdminTokenGate(this.tokens);
    const client = AdminClient.create(
      // librdkafka's error lines (not to stderr: to the handler) name why a connection failed.
      { ...adminConfig, log_level: 3, ...gate?.config() },
      { 'event.log': (log) => this.errors.noteClientLog(log) },
    );
    this.tokens?.follow(client);
    this.admins = new ConfluentAdmin(
      client,
      options.topics,
      this.errors,
      reachable,
      timeoutMs,
      new ConfluentDescribeHelper(adminConfig, timeoutMs, this.tokens),
      gate,
    );
    this.admin = guardedAdmin(this.admins, this.closure, () => this.admins.disconnect());
  }

  about(): KafkaPortAbout {
    return { client: 'confluent', groupProtocol: this.protocol };
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
    return new ConfluentGroupConsumer(spec, {
      base: this.base,
      protocol: this.protocol,
      timings: this.options.consumer,
      logger: this.logger,
      errors: this.errors,
      tokens: this.tokens,
      owner,
      ownMember: (groupId, clientId) => this.admins.memberOf(groupId, clientId),
      bounds: async (topic, partition) => {
        const b = (await this.admins.offsetBounds(topic)).get(partition);
        return { low: Number(b?.low ?? 0), high: Number(b?.high ?? 0) };
      },
    });
  };

  send(topic: string, records: (OutgoingRecord | RawOutgoingRecord)[]): Promise<void> {
    return this.closure.run(async () => {
      try {
        // A failed send retires its producer (RetiringProducer).
        await this.producer.send((producer) =>
          producer.send(
            topic,
            records.map((r) => ({
              key: r.key,
              value: r.value,
              headers: toProducedHeaders(r.headers),
            })),
          ),
        );
      } catch (error) {
        throw this.errors.fatal(error, publishingOperation(topic)) ?? error;
      }
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
