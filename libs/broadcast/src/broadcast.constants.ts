/** Metadata key written by @OnBroadcast and read by the explorer. */
export const BROADCAST_HANDLER_METADATA = 'broadcast:handler';

// The engine's defaults live in core/; re-exported for the Nest layer's convenience.
export * from './core/broadcast.defaults.js';

/** Transport id for `@EventPattern(topic, BROADCAST_TRANSPORT)`. */
export const BROADCAST_TRANSPORT = Symbol('BROADCAST_TRANSPORT');
