import { Inject, Injectable } from '@nestjs/common';
import { topicName, type BroadcastTopic } from '../../core/broadcast-definition.js';
import type { PublishOptions } from '../../core/publishing/publish-options.js';
import { BroadcastEngine } from '../../engine/broadcast.engine.js';
import type {
  BroadcastReceipt,
  ReceiptOptions,
} from '../../interfaces/broadcast-receipt.interface.js';
import type { HandlerCalls } from '../../core/dispatch/handler-calls.js';
import { errorMessage, withTimeout } from '../../shared/async.utils.js';
import { InMemoryKafka } from '../../testing/in-memory-kafka.js';

/**
 * A handler call that threw, rejected or timed out: one per call, so a handler with
 * `retry: { attempts: 3 }` that always throws gives three (attempts 1, 2 and 3, the last final).
 */
export interface HandlerFailure {
  /** The handler's name: `Class.method`, or the name given to @OnBroadcast. */
  handler: string;
  /** Logical topic (without topicPrefix). */
  topic: string;
  /** Partition of the record the handler failed on. */
  partition: number;
  /** Offset of the record the handler failed on. */
  offset: string;
  /** The error's message (`timed out after <ms> ms` for a call past its timeout). */
  reason: string;
  /** Which call of the handler on this record failed: 1 for the first, 2 for its first retry… */
  attempt: number;
  /**
   * No retry follows (the last attempt, or no retry could be taken): this failure went to the
   * receipt, `onHandlerError` and the dead-letter topic.
   */
  final: boolean;
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

/** @internal The failed handler calls of one testing module's engine, oldest first. */
@Injectable()
export class HandlerFailureLog {
  readonly failures: HandlerFailure[] = [];

  /** Keeps every failed call of the engine's handlers from now on. */
  watch(calls: HandlerCalls): void {
    calls.onFailedAttempt = ({ handler, message, attempt, final, error }) =>
      this.failures.push({
        handler,
        topic: message.topic,
        partition: message.partition,
        offset: message.offset,
        reason: errorMessage(error),
        attempt,
        final,
      });
  }
}

/**
 * How long waitForHandlers() waits by default, in ms: enough for a handler with a few retries
 * on the default handler timeout. Under fake timers it passes only as the test advances them.
 */
const DEFAULT_WAIT_MS = 30_000;

/**
 * Drives broadcasts in a test (from `nestjs-kafka-broadcast/testing`): publishes and resolves once
 * every handler of every engine on the in-memory broker has its final outcome (retries, timeouts,
 * `onHandlerError` and dead letters included), shows what was published and which handler calls
 * failed. Retries wait on timers: under `vi.useFakeTimers()`, advance them
 * (`vi.advanceTimersByTimeAsync`) while the returned promise is pending.
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
   * included), then waits until every handler of every engine on the broker has its final
   * outcome (see waitForHandlers). With `receipts`, resolves with the receipt. It first waits for
   * this module's engine to read: with `waitForReady: false` (an app behind probes) init returns
   * before that, and a broadcast published earlier is not for this instance.
   */
  publish<T>(
    topic: BroadcastTopic<T>,
    payload: NoInfer<T>,
    options: PublishOptions & { receipts: ReceiptOptions | true },
  ): Promise<BroadcastReceipt>;
  /** Publishes as above and resolves once every handler has its final outcome. */
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
    await this.whenReady();
    const result = await this.engine.publisher.publish<T>(topic, payload as NoInfer<T>, options);
    await this.waitForHandlers();
    return result;
  }

  /**
   * Resolves once every record on the broker was handed to the handlers of every running engine
   * and each handler has its final outcome: handled, or failed after its last retry (each attempt
   * bounded by its timeout) with its `onHandlerError` call and dead letter done. Rejects after
   * `timeoutMs`.
   */
  waitForHandlers(timeoutMs = DEFAULT_WAIT_MS): Promise<void> {
    return withTimeout(this.broker.settled(), timeoutMs, 'waiting for the broadcast handlers');
  }

  /**
   * Resolves once this module's engine reads its group: at once after init with `waitForReady`
   * (the default), a moment later with `waitForReady: false`. Rejects after `timeoutMs`, or if
   * the engine stopped first.
   */
  whenReady(timeoutMs = DEFAULT_WAIT_MS): Promise<void> {
    return withTimeout(
      this.engine.reader.whenReady(),
      timeoutMs,
      'waiting for the broadcast engine to read its group',
    );
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

  /**
   * Every handler call of this module's engine that threw, rejected or timed out, oldest first:
   * one entry per attempt (see HandlerFailure's `attempt` and `final`).
   */
  get failures(): readonly HandlerFailure[] {
    return [...this.log.failures];
  }

  /** Forgets the failures seen so far (between the steps of one test). */
  clearFailures(): void {
    this.log.failures.length = 0;
  }
}
