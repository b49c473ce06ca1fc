import type { BroadcastMessage } from './broadcast-message.interface.js';

/**
 * How a failed handler call is tried again. The first attempt runs while the partition waits
 * (bounded by the handler's timeout, as always); the later ones run in the background, so a
 * retry never holds up the messages after it.
 */
export interface BroadcastRetryOptions {
  /**
   * Calls in all, the first included (as BullMQ's and Spring's `attempts`): 3 means the first
   * call and at most two retries. 1 (the default) never retries.
   */
  attempts: number;
  /**
   * Wait before the first retry, in ms (default 200); it doubles before each further one
   * (200, 400, 800 …), up to `maxBackoffMs`.
   */
  backoffMs?: number;
  /** Longest wait between two attempts, in ms (default 30000). */
  maxBackoffMs?: number;
}

/** Options of one handler: `@OnBroadcast(topic, options)` or `engine.on(topic, handler, options)`. */
export interface BroadcastHandlerOptions {
  /** Name used for this handler in logs, metrics, receipts and dead letters. */
  name?: string;
  /** Retries after a failure (default: none). */
  retry?: BroadcastRetryOptions;
  /**
   * Longest each call of this handler is awaited before it counts as failed, in ms (default
   * the module's `handlerTimeoutMs`). Below `consumer.sessionTimeoutMs`: the first call runs
   * while the partition waits, and the consumer heartbeats only between records.
   */
  timeoutMs?: number;
}

/** What `onHandlerError` is told about a handler whose last attempt failed. */
export interface HandlerErrorContext {
  /** The logical topic, without the topicPrefix. */
  readonly topic: string;
  /** The handler's name (`Class.method` for @OnBroadcast, or the name given). */
  readonly handler: string;
  /** The message, as the handler got it. */
  readonly message: BroadcastMessage;
  /** Calls made, the first included. */
  readonly attempts: number;
  /** This instance's id. */
  readonly instanceId: string;
}

/**
 * Called once per message and handler after its last attempt failed. It is awaited for at
 * most `handlerTimeoutMs`, in the background; a hook that throws, rejects or takes longer is
 * logged and counted (`hookFailures`), and never stops reading.
 */
export type HandlerErrorHook = (error: unknown, context: HandlerErrorContext) => unknown;

/** Where the records whose handler failed for good are copied to. */
export interface BroadcastDeadLetterOptions {
  /**
   * Logical topic (the topicPrefix is prepended), created at start like the engine's other
   * topics and never read by the engine.
   */
  topic: string;
}
