/** Metadata key written by @OnBroadcast and read by the explorer. */
export const BROADCAST_HANDLER_METADATA = 'broadcast:handler';

/** Transport id for `@EventPattern(topic, BROADCAST_TRANSPORT)`. */
export const BROADCAST_TRANSPORT = Symbol('BROADCAST_TRANSPORT');
