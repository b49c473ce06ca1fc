import { extendArrayMetadata } from '@nestjs/common/utils/extend-metadata.util.js';
import { BROADCAST_HANDLER_METADATA } from './broadcast.constants.js';

/** Options of one @OnBroadcast. */
export interface OnBroadcastOptions {
  /** Name used for this handler in logs (default `Class.method`). */
  name?: string;
}

export interface OnBroadcastMetadata {
  topics: string[];
  options: OnBroadcastOptions;
}

/**
 * Marks a provider or controller method as a handler of one or more broadcast topics.
 * It is called as `(payload, message: BroadcastMessage)` on every instance.
 * Decorators stack; several methods may listen to one topic.
 */
export function OnBroadcast(
  topic: string | string[],
  options: OnBroadcastOptions = {},
): MethodDecorator {
  const topics = Array.isArray(topic) ? topic : [topic];
  return (_target, _key, descriptor: PropertyDescriptor) => {
    extendArrayMetadata(
      BROADCAST_HANDLER_METADATA,
      [{ topics, options }],
      descriptor.value as Function,
    );
    return descriptor;
  };
}
