import { BroadcastMessages } from '../errors/broadcast.messages.js';
import type { BroadcastInstrumentation } from '../interfaces/broadcast-instrumentation.interface.js';
import type { KafkaPort } from '../interfaces/kafka-port.interface.js';
import { NO_INSTRUMENTATION } from '../telemetry/no-instrumentation.js';

/** Options of one publish. */
export interface PublishOptions {
  key?: string;
  headers?: Record<string, string>;
}

/** Publishes JSON broadcasts; every live instance's handlers receive them. */
export class BroadcastPublisher {
  /** Traces publishes (set by the engine once telemetry is loaded). */
  instrumentation: BroadcastInstrumentation = NO_INSTRUMENTATION;

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
    const fullTopic = this.topicPrefix + topic;
    const headers = { ...options.headers };
    const observed = this.instrumentation.publish(fullTopic, headers);
    try {
      await this.kafka.send(fullTopic, [{ key: options.key ?? null, value, headers }]);
    } catch (error) {
      observed.end(error);
      throw error;
    }
    observed.end();
  }
}
