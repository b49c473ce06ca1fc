import { BroadcastMessages } from '../errors/broadcast.messages.js';
import type { KafkaPort } from '../interfaces/kafka-port.interface.js';

/** Options of one publish. */
export interface PublishOptions {
  key?: string;
  headers?: Record<string, string>;
}

/** Publishes JSON broadcasts; every live instance's handlers receive them. */
export class BroadcastPublisher {
  /** @internal Built by BroadcastEngine; inject the instance (Nest) or read it from the engine. */
  constructor(
    private readonly kafka: KafkaPort,
    private readonly topicPrefix: string,
  ) {}

  /** Resolves once the broker has acknowledged the message (acks = all). */
  async publish<T>(topic: string, payload: T, options: PublishOptions = {}): Promise<void> {
    let value: string | undefined;
    try {
      value = JSON.stringify(payload);
    } catch {
      value = undefined;
    }
    if (value === undefined) throw new TypeError(BroadcastMessages.notSerializable(topic));
    await this.kafka.send(this.topicPrefix + topic, [
      { key: options.key ?? null, value, headers: options.headers },
    ]);
  }
}
