import { BroadcastMessages } from '../../errors/broadcast.messages.js';
import { BroadcastReceiptError } from '../../errors/broadcast-receipt.error.js';
import type {
  BroadcastReceipt,
  ReceiptOptions,
} from '../../interfaces/broadcast-receipt.interface.js';
import type { BroadcastInstrumentation } from '../../interfaces/broadcast-instrumentation.interface.js';
import type { KafkaPort } from '../../interfaces/kafka-port.interface.js';
import { NO_INSTRUMENTATION } from '../../interfaces/no-instrumentation.js';
import { type BroadcastTopic, topicName } from '../broadcast-definition.js';
import type { PublishFeatures } from './publish-features.js';
import type { PublishOptions } from './publish-options.js';

/** Publishes JSON broadcasts; every live instance's handlers receive them. */
export class BroadcastPublisher {
  /** @internal Built by BroadcastEngine; inject the instance (Nest) or read it from the engine. */
  constructor(
    private readonly kafka: KafkaPort,
    private readonly topicPrefix: string,
    /** Validation, targeting and receipts; without them only plain publishes work. */
    private readonly features?: PublishFeatures,
    /** Traces publishes; read at each publish, since telemetry loads in the background. */
    private readonly instrumentation: () => BroadcastInstrumentation = () => NO_INSTRUMENTATION,
  ) {}

  /**
   * Resolves once the broker has acknowledged the message (acks = all), or with `receipts`,
   * once every instance expected at publish time answered or the timeout passed. A
   * definition's schema is checked first: an invalid payload never reaches Kafka.
   */
  publish<T>(
    topic: BroadcastTopic<T>,
    payload: NoInfer<T>,
    options: PublishOptions & { receipts: ReceiptOptions | true },
  ): Promise<BroadcastReceipt>;
  publish<T>(
    topic: BroadcastTopic<T>,
    payload: NoInfer<T>,
    options?: PublishOptions,
  ): Promise<void>;
  async publish<T>(
    topic: BroadcastTopic<T>,
    payload: T,
    options: PublishOptions = {},
  ): Promise<void | BroadcastReceipt> {
    const name = topicName(topic);
    const checked = this.features ? await this.features.check(topic, payload) : payload;
    let value: string | undefined;
    try {
      value = JSON.stringify(checked);
    } catch {
      value = undefined;
    }
    if (value === undefined) throw new TypeError(BroadcastMessages.notSerializable(name));
    const fullTopic = this.topicPrefix + name;
    const send = async (given: Record<string, string> | undefined): Promise<void> => {
      const headers = { ...given };
      const observed = this.instrumentation().publish(fullTopic, headers);
      try {
        await this.kafka.send(fullTopic, [{ key: options.key ?? null, value, headers }]);
      } catch (error) {
        observed.end(error);
        throw error;
      }
      observed.end();
    };
    if (!this.features) return send(options.headers);
    return this.features.send(name, options, send);
  }

  /** publish() with receipts that rejects (BroadcastReceiptError) unless every expected instance handled it. */
  async publishAndConfirm<T>(
    topic: BroadcastTopic<T>,
    payload: NoInfer<T>,
    options: PublishOptions = {},
  ): Promise<BroadcastReceipt> {
    const receipt = await this.publish<T>(topic, payload, {
      ...options,
      receipts: options.receipts ?? true,
    });
    if (receipt.failed.length > 0 || receipt.missing.length > 0)
      throw new BroadcastReceiptError(receipt);
    return receipt;
  }
}
