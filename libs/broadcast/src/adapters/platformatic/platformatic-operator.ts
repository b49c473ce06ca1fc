import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Admin, Producer, compatibilityPartitioner, stringSerializers } from '@platformatic/kafka';
import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import type {
  OperatorDeleteOutcome,
  OperatorGroup,
  OperatorKafkaPort,
  OperatorReadOptions,
} from '../../interfaces/broadcast-operator.interface.js';
import { listsConsumerGroupApis } from './platformatic-consumer-group-describe.js';
import { probeConnection } from './platformatic-connection-probe.js';
import { hasProtocolError, PlatformaticErrors } from './platformatic-errors.js';
import { PlatformaticAdapter } from './platformatic.adapter.js';
import type { AdapterOptions } from '../shared/adapter-types.js';
import { toClientOptions } from './platformatic-client-options.js';
import { readTopic } from '../shared/topic-reader.js';
import {
  describeGroupsOfBothProtocols,
  listGroupIdsOfBothProtocols,
} from './platformatic-operator-groups.js';

/** acks = all, as the publisher sends. */
const ACKS_ALL = -1;

/**
 * The operator CLI's Kafka client on @platformatic/kafka: an admin and a producer made on demand,
 * and the adapter's own group consumer for reading (`tail`, receipts), so a tail reads exactly as
 * an instance does. `options` are the engine's, resolved (the CLI's client id and the default
 * consumer timings); `brokers` the bootstrap brokers.
 */
export class PlatformaticOperator implements OperatorKafkaPort {
  private adminClient: Admin | undefined;
  private producerClient: Producer<string, string, string, string> | undefined;
  private reader: PlatformaticAdapter | undefined;
  private listsKip848: Promise<boolean> | undefined;
  private readonly errors: PlatformaticErrors;
  private probed: Promise<unknown> | undefined;

  constructor(
    private readonly options: AdapterOptions,
    private readonly brokers: string[],
  ) {
    this.errors = new PlatformaticErrors(options.kafka);
  }

  async listGroupIds(): Promise<string[]> {
    return this.named(async () => listGroupIdsOfBothProtocols(this.admin(), await this.kip848()));
  }

  async describeGroups(groupIds: readonly string[]): Promise<OperatorGroup[]> {
    if (groupIds.length === 0) return [];
    return this.named(async () =>
      describeGroupsOfBothProtocols(this.admin(), groupIds, await this.kip848()),
    );
  }

  async deleteGroup(groupId: string): Promise<OperatorDeleteOutcome> {
    try {
      await this.admin().deleteGroups({ groups: [groupId] });
      return 'deleted';
    } catch (error) {
      if (hasProtocolError(error, 'NON_EMPTY_GROUP')) return 'non-empty';
      if (hasProtocolError(error, 'GROUP_ID_NOT_FOUND')) return 'not-found';
      throw this.errors.fatal(error) ?? error;
    }
  }

  async publish(
    topic: string,
    record: { key: string | null; value: string; headers: Record<string, string> },
  ): Promise<{ partition: number; offset: string }> {
    this.producerClient ??= new Producer({
      ...this.clientOptions(),
      serializers: stringSerializers,
      // kafkajs's (and Java's) partition for a key, as the engine's publisher uses.
      partitioner: compatibilityPartitioner,
      autocreateTopics: true,
    });
    const producer = this.producerClient;
    const { offsets } = await this.named(() =>
      producer.send({
        acks: ACKS_ALL,
        messages: [
          { topic, key: record.key ?? undefined, value: record.value, headers: record.headers },
        ],
      }),
    );
    const written = offsets?.find((o) => o.topic === topic);
    return { partition: written?.partition ?? 0, offset: written?.offset.toString() ?? '' };
  }

  async read(topic: string, options: OperatorReadOptions): Promise<void> {
    // Named after the topic (so it shows what reads it), never matching `<prefix><base>-<n>`.
    const groupId = `${topic}.tail-${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
    const reader = (this.reader ??= new PlatformaticAdapter(
      { ...this.options, kafka: { ...this.options.kafka, brokers: this.brokers } },
      silent,
    ));
    await this.named(() => readTopic(reader, groupId, topic, options));
  }

  async disconnect(): Promise<void> {
    const [admin, producer, reader] = [this.adminClient, this.producerClient, this.reader];
    this.adminClient = this.producerClient = this.reader = undefined;
    this.listsKip848 = undefined;
    await Promise.all([
      admin?.close().catch(() => undefined),
      producer?.close().catch(() => undefined),
      reader?.disconnect().catch(() => undefined),
    ]);
  }

  /**
   * Runs `call`, turning a refused login, a TLS failure or a missing ACL into the engine's one-line
   * error naming what to check: the client itself reports them as "listApis failed 4 times."
   * after its retries.
   */
  private async named<T>(call: () => Promise<T>): Promise<T> {
    try {
      // One connection that is not retried first, so a refusal is reported at once (see probe).
      await (this.probed ??= probeConnection(this.clientOptions()));
      return await call();
    } catch (error) {
      throw this.errors.fatal(error) ?? error;
    }
  }

  /** Whether the broker lists the KIP-848 APIs (asked once; a failure is asked again). */
  private kip848(): Promise<boolean> {
    this.listsKip848 ??= listsConsumerGroupApis(this.admin());
    this.listsKip848.catch(() => (this.listsKip848 = undefined));
    return this.listsKip848;
  }

  private admin(): Admin {
    // The client connects on its first request, and again after a failed one.
    this.adminClient ??= new Admin(this.clientOptions());
    return this.adminClient;
  }

  private clientOptions() {
    return toClientOptions(this.options.kafka, this.brokers);
  }
}

/** The CLI prints its own errors; the reader's consumer logs nothing. */
const silent: BroadcastLogger = {
  log: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
