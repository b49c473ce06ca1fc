import { extendArrayMetadata } from '@nestjs/common/utils/extend-metadata.util.js';
import { BROADCAST_HANDLER_METADATA } from './broadcast.constants.js';
import type { BroadcastTopic } from './core/broadcast-definition.js';
import type { BroadcastMessage } from './interfaces/broadcast-message.interface.js';

/** Options of one @OnBroadcast. */
export interface OnBroadcastOptions {
  /** Name used for this handler in logs (default `Class.method`). */
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
