import { extendArrayMetadata } from '@nestjs/common/utils/extend-metadata.util.js';
import { BROADCAST_HANDLER_METADATA } from './broadcast.constants.js';
import type { BroadcastTopic } from '../core/broadcast-definition.js';
import type { BroadcastHandlerOptions } from '../interfaces/broadcast-failure-policy.interface.js';
import type { BroadcastMessage } from '../interfaces/broadcast-message.interface.js';

/**
 * Options of one @OnBroadcast: `name` (default `Class.method`), `retry: { attempts, backoffMs,
 * maxBackoffMs }` and `timeoutMs` (see BroadcastHandlerOptions). They are checked when the
 * module initialises: an invalid one fails `app.init()` naming the option and the handler.
 */
export interface OnBroadcastOptions extends BroadcastHandlerOptions {
  /** Name used for this handler in logs, metrics, receipts and dead letters (default `Class.method`). */
  name?: string;
}

export interface OnBroadcastMetadata {
  topics: BroadcastTopic[];
  options: OnBroadcastOptions;
}

/**
 * Marks a provider or controller method as a handler of one or more broadcast topics.
 * It is called as `(payload, message: BroadcastMessage)` on every instance.
 * Decorators stack; several methods may listen to one topic. With a definition
 * (defineBroadcast<T>), the method must accept a T: checked at compile time.
 *
 * A failed call is logged and counted; with `retry` it is called again with the same message
 * in the background (the messages after it do not wait), and once its last attempt failed the
 * module's `onHandlerError` and dead-letter topic get it:
 * `@OnBroadcast('evict', { retry: { attempts: 3, backoffMs: 200 }, timeoutMs: 2000 })`.
 */
export function OnBroadcast<T = any>(
  topic: BroadcastTopic<T> | readonly BroadcastTopic<T>[],
  options: OnBroadcastOptions = {},
) {
  const topics: BroadcastTopic[] = Array.isArray(topic) ? [...topic] : [topic as BroadcastTopic];
  return <M extends (payload: T, message: BroadcastMessage<T>) => unknown>(
    _target: object,
    _key: string | symbol,
    descriptor: TypedPropertyDescriptor<M>,
  ) => {
    extendArrayMetadata(
      BROADCAST_HANDLER_METADATA,
      [{ topics, options }],
      descriptor.value as Function,
    );
    return descriptor;
  };
}
