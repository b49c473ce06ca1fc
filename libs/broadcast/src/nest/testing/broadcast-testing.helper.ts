import { Inject, Injectable } from '@nestjs/common';
import { topicName, type BroadcastTopic } from '../../core/broadcast-definition.js';
import type { PublishOptions } from '../../core/publishing/publish-options.js';
import { BroadcastEngine } from '../../engine/broadcast.engine.js';
import type {
  BroadcastReceipt,
  ReceiptOptions,
} from '../../interfaces/broadcast-receipt.interface.js';
import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import { withTimeout } from '../../shared/async.utils.js';
import { InMemoryKafka } from '../../testing/in-memory-kafka.js';

/** A handler call that threw, rejected or timed out, as the engine reported it. */
export interface HandlerFailure {
  /** The handler's name: `Class.method`, or the name given to @OnBroadcast. */
  handler: string;
  /** Logical topic (without topicPrefix). */
  topic: string;
  /** Partition of the record the handler failed on. */
  partition: number;
  /** Offset of the record the handler failed on. */
  offset: string;
  /** The error's message. */
  reason: string;
}

/** A record on a topic of the in-memory broker, its value parsed as JSON. */
export interface PublishedRecord<T = unknown> {
  /** The value, parsed as JSON. */
  payload: T;
  /** The record's key, or null. */
  key: string | null;
  /** Headers as the publisher set them (receipt id, targeting, trace context, your own). */
  headers: Record<string, string>;
  /** The partition it was appended to (the key's, or 0 without a key). */
  partition: number;
  /** Offset in its partition, as a decimal string. */
  offset: string;
  /** When the broker appended it (epoch ms). */
  timestamp: number;
}

/**
 * @internal The handler failures of one testing module, collected from the engine's log: each
 * failure is logged once with its handler's name as a field.
 */
@Injectable()
export class HandlerFailureLog {
  readonly failures: HandlerFailure[] = [];

  /** Forwards to `logger` and keeps every handler failure. */
  recording(logger: BroadcastLogger): BroadcastLogger {
    return {
      log: (message, fields) => (fields ? logger.log(message, fields) : logger.log(message)),
      warn: (message, fields) => (fields ? logger.warn(message, fields) : logger.warn(message)),
      debug: (message, fields) =>
        fields ? logger.debug?.(message, fields) : logger.debug?.(message),
      error: (message, stack, fields) => {
        if (typeof fields?.handler === 'string') {
          this.failures.push({
            handler: fields.handler,
            topic: String(fields.topic),
            partition: Number(fields.partition),
            offset: String(fields.offset),
            reason: String(fields.reason),
          });
        }
        logger.error(message, stack, fields);
      },
    };
  }
}

/** How long waitForHandlers() waits by default, in ms: longer than the default handler timeout. */
const DEFAULT_WAIT_MS = 10_000;

/**
 * Drives broadcasts in a test (from `nestjs-kafka-broadcast/testing`): publishes and resolves once
 * every handler of every engine on the in-memory broker ran, shows what was published and which
 * handler calls failed.
 *
 * ```ts
 * await moduleRef.get(BroadcastTestingHelper).publish('product.changed', { id: 1 });
 * expect(cache.get(1)).toBeUndefined(); // the handler has run
 * ```
 */
@Injectable()
export class BroadcastTestingHelper {
  /** @internal Built by BroadcastTestingModule; inject it. */
  constructor(
    @Inject(BroadcastEngine) private readonly engine: BroadcastEngine,
    @Inject(InMemoryKafka) private readonly kafka: InMemoryKafka,
    @Inject(HandlerFailureLog) private readonly log: HandlerFailureLog,
  ) {}

  /** The in-memory broker of this module: its topics, groups and their members. */
  get broker(): InMemoryKafka {
    return this.kafka;
  }

  /**
   * Publishes through this module's BroadcastPublisher (validation, targeting and receipts
   * included), then waits until every handler of every engine on the broker ran (see
   * waitForHandlers). With `receipts`, resolves with the receipt.
   */
  publish<T>(
    topic: BroadcastTopic<T>,
    payload: NoInfer<T>,
    options: PublishOptions & { receipts: ReceiptOptions | true },
  ): Promise<BroadcastReceipt>;
  /** Publishes as above and resolves once every handler ran. */
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
    const result = await this.engine.publisher.publish<T>(topic, payload as NoInfer<T>, options);
    await this.waitForHandlers();
    return result;
  }

  /**
   * Resolves once every record on the broker was handed to the handlers of every running engine
   * and each call settled (handled, failed or timed out); rejects after `timeoutMs`.
   */
  waitForHandlers(timeoutMs = DEFAULT_WAIT_MS): Promise<void> {
    return withTimeout(this.broker.settled(), timeoutMs, 'waiting for the broadcast handlers');
  }

  /** The records on a logical topic (topicPrefix added), oldest first, values parsed as JSON. */
  published<T = unknown>(topic: BroadcastTopic<T>): PublishedRecord<T>[] {
    const full = this.engine.options.topicPrefix + topicName(topic);
    const partitions = this.broker.records(full);
    return partitions.flatMap((records, partition) =>
      records.map((record) => ({
        payload: JSON.parse(record.value?.toString('utf8') ?? 'null') as T,
        key: record.key?.toString('utf8') ?? null,
        headers: Object.fromEntries(
          Object.entries(record.headers ?? {}).map(([k, v]) => [k, String(v)]),
        ),
        partition,
        offset: record.offset,
        timestamp: Number(record.timestamp),
      })),
    );
  }

  /** Handler calls of this module's engine that threw, rejected or timed out, oldest first. */
  get failures(): readonly HandlerFailure[] {
    return [...this.log.failures];
  }

  /** Forgets the failures seen so far (between the steps of one test). */
  clearFailures(): void {
    this.log.failures.length = 0;
  }
}
