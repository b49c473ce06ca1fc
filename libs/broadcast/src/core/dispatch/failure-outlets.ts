import type { HandlerErrorHook } from '../../interfaces/broadcast-failure-policy.interface.js';
import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import type { BroadcastMessage } from '../../interfaces/broadcast-message.interface.js';
import type {
  IncomingRecord,
  OutgoingRecord,
  RawOutgoingRecord,
} from '../../interfaces/kafka-port.interface.js';
import { errorMessage, withTimeout } from '../../shared/async.utils.js';
import { deadLetterRecord } from './dead-letter-record.js';

/** A handler whose last attempt failed: what the hook and the dead letter are made of. */
export interface ExhaustedCall {
  readonly handler: string;
  readonly message: BroadcastMessage;
  readonly record: IncomingRecord;
  readonly error: unknown;
  readonly attempts: number;
}

export interface FailureOutletSettings {
  instanceId: string;
  topicPrefix: string;
  hook: HandlerErrorHook | undefined;
  /** The full dead-letter topic, or undefined: none. */
  deadLetterTopic: string | undefined;
  /** How long the hook and a dead-letter send are awaited before they count as failed. */
  timeoutMs: number;
}

/**
 * Where a handler's final failure goes: the application's `onHandlerError` hook and the
 * dead-letter topic. Both run in the background, bounded and contained: a hook that throws,
 * rejects or hangs, or a send the broker refuses, is logged and counted, and reading never
 * waits for either.
 */
export class FailureOutlets {
  hookFailures = 0;
  deadLettered = 0;
  deadLetterFailures = 0;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly settings: FailureOutletSettings,
    private readonly send: (
      topic: string,
      records: (OutgoingRecord | RawOutgoingRecord)[],
    ) => Promise<void>,
    private readonly logger: BroadcastLogger,
  ) {}

  /**
   * Hands the failure to the hook and the dead-letter topic; returns at once, with what runs in
   * the background (undefined: nothing to run).
   */
  exhausted(call: ExhaustedCall): Promise<unknown> | undefined {
    const { hook, deadLetterTopic } = this.settings;
    const running: Promise<void>[] = [];
    if (hook) running.push(this.track(this.callHook(hook, call)));
    if (deadLetterTopic) running.push(this.track(this.deadLetter(deadLetterTopic, call)));
    return running.length > 0 ? Promise.all(running) : undefined;
  }

  /** Resolves once every hook call and dead-letter send under way settled, or after `ms`. */
  async settled(ms: number): Promise<void> {
    if (this.inFlight.size === 0) return;
    await withTimeout(Promise.all(this.inFlight), ms, 'failure outlets').catch(() => undefined);
  }

  private track(running: Promise<void>): Promise<void> {
    this.inFlight.add(running);
    void running.finally(() => this.inFlight.delete(running));
    return running;
  }

  private async callHook(hook: HandlerErrorHook, call: ExhaustedCall): Promise<void> {
    const context = {
      topic: call.message.topic,
      handler: call.handler,
      message: call.message,
      attempts: call.attempts,
      instanceId: this.settings.instanceId,
    };
    try {
      await withTimeout(
        Promise.resolve().then(() => hook(call.error, context)),
        this.settings.timeoutMs,
        'onHandlerError',
      );
    } catch (error) {
      this.hookFailures++;
      this.report(`The onHandlerError hook failed for ${call.handler}`, call, error);
    }
  }

  private async deadLetter(topic: string, call: ExhaustedCall): Promise<void> {
    const record = deadLetterRecord({
      fullTopic: this.settings.topicPrefix + call.message.topic,
      partition: call.message.partition,
      record: call.record,
      handler: call.handler,
      error: call.error,
      attempts: call.attempts,
      instanceId: this.settings.instanceId,
    });
    try {
      await withTimeout(this.send(topic, [record]), this.settings.timeoutMs, 'dead-letter send');
      this.deadLettered++;
    } catch (error) {
      this.deadLetterFailures++;
      this.report(`Could not dead-letter the record of ${call.handler} to ${topic}`, call, error);
    }
  }

  private report(what: string, call: ExhaustedCall, error: unknown): void {
    const { topic, partition, offset } = call.message;
    try {
      this.logger.error(
        `${what} on ${topic}[${partition}]@${offset}: ${errorMessage(error)}`,
        error instanceof Error ? error.stack : undefined,
        { topic, partition, offset, handler: call.handler, reason: errorMessage(error) },
      );
    } catch {
      // The logger itself failed: the count is all that can be kept.
    }
  }
}
