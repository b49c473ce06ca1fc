import type { RdkafkaConfig } from './confluent-config.js';
import { pause } from '../../shared/async.utils.js';
import { RD, rdCode, refusalOf } from './confluent-errors.js';
import { answer, Producer, type LibrdKafkaError, type RdProducer } from './confluent-library.js';
import type { ConfluentTokens } from './confluent-oauth-tokens.js';

/** One record as the producer sends it. */
export interface ProducedRecord {
  key: Buffer | string | null;
  value: Buffer | string | null;
  headers: { [key: string]: Buffer | string }[] | undefined;
}

/** Where a record was written. */
export interface Delivered {
  partition: number;
  offset: string;
}

/** How long a purged record waits for the refusal that purged it (the binding's two events race). */
const REFUSAL_WAIT_MS = 1_000;

/** How long librdkafka keeps trying to deliver a record before it reports it failed. */
const DELIVERY_TIMEOUT_MS = 30_000;

/**
 * One idempotent librdkafka producer (acks = all), whose send resolves once the broker
 * acknowledged every record: librdkafka produces asynchronously and reports each delivery, which
 * this matches to its send by the record's opaque.
 */
export class ConfluentProducer {
  private readonly producer: RdProducer;
  private readonly ready: Promise<unknown>;
  private readonly waiting = new Map<
    number,
    (error: LibrdKafkaError | undefined, at?: Delivered) => void
  >();
  private next = 0;
  /** The broker's refusal this producer heard (its records then fail without a reason). */
  private refusal: Error | undefined;
  private heardRefusal: () => void = () => undefined;
  private readonly refused = new Promise<void>((resolve) => (this.heardRefusal = resolve));

  /** `tokens`: SASL/OAUTHBEARER's, whose refresh callback this producer's librdkafka asks. */
  constructor(base: RdkafkaConfig, tokens?: ConfluentTokens) {
    this.producer = new Producer({
      ...base,
      ...tokens?.config(),
      'client.id': `${String(base['client.id'])}-producer`,
      dr_cb: true,
      acks: -1,
      // Sent again after a lost answer, written once: a producer id and sequence numbers.
      'enable.idempotence': true,
      // Java's (and kafkajs's) partition for a key, so every client puts a key in one partition.
      partitioner: 'murmur2_random',
      'linger.ms': 0,
      'message.timeout.ms': DELIVERY_TIMEOUT_MS,
    });
    tokens?.follow(this.producer);
    this.producer.on('event.error', (error) => {
      this.refusal ??= refusalOf(error);
      if (this.refusal) this.heardRefusal();
    });
    this.producer.on('delivery-report', (error, report) => {
      const settle = this.waiting.get(report.opaque as number);
      this.waiting.delete(report.opaque as number);
      const at = { partition: report.partition, offset: String(report.offset) };
      if (!error) return settle?.(undefined, at);
      // Records purged by a fatal error (a refused InitProducerId) may be reported before the
      // error event that names the refusal: wait for it a moment, then fail with the cause.
      const purged = rdCode(error) === RD.PURGE_QUEUE && !this.refusal;
      void (purged ? Promise.race([this.refused, pause(REFUSAL_WAIT_MS)]) : Promise.resolve()).then(
        () => settle?.((this.refusal as LibrdKafkaError | undefined) ?? error, at),
      );
    });
    this.producer.setPollInterval(5);
    this.ready = answer((cb) => this.producer.connect({ allTopics: false }, cb));
    this.ready.catch(() => undefined);
  }

  /** Resolves with where each record was written, once the broker acknowledged them all. */
  async send(topic: string, records: readonly ProducedRecord[]): Promise<Delivered[]> {
    await this.ready;
    return Promise.all(
      records.map(
        (r) =>
          new Promise<Delivered>((resolve, reject) => {
            const opaque = this.next++;
            this.waiting.set(opaque, (error, at) => (error || !at ? reject(error) : resolve(at)));
            try {
              const value = r.value === null ? null : Buffer.from(r.value);
              this.producer.produce(
                topic,
                null,
                value,
                r.key ?? undefined,
                null,
                opaque,
                r.headers,
              );
            } catch (error) {
              this.waiting.delete(opaque);
              reject(this.refusal ?? error);
            }
          }),
      ),
    );
  }

  /** Waits for what is still queued (bounded), then disconnects. */
  async close(): Promise<void> {
    await this.ready.catch(() => undefined);
    if (!this.producer.isConnected()) return;
    await new Promise<void>((resolve) => this.producer.flush(2_000, () => resolve()));
    for (const settle of this.waiting.values())
      settle(new Error('the producer closed') as unknown as LibrdKafkaError);
    this.waiting.clear();
    await answer((cb) => this.producer.disconnect(cb));
  }
}
