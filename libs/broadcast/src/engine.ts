// The engine without the NestJS layer: `import { BroadcastEngine } from 'nestjs-kafka-broadcast/engine'`
// loads neither @nestjs/* nor @nestjs/terminus.
export * from './broadcast.constants.js';
export * from './errors/index.js';
export type * from './interfaces/advisory-lock.interface.js';
export type * from './interfaces/broadcast-logger.interface.js';
export type * from './interfaces/broadcast-message.interface.js';
export type * from './interfaces/broadcast-module-options.interface.js';
export type * from './interfaces/broadcast-status.interface.js';
export type * from './interfaces/kafka-port.interface.js';
export { BroadcastEngine, type BroadcastEngineDeps } from './engine/broadcast.engine.js';
export { BroadcastGroupAllocator } from './core/broadcast-group.allocator.js';
export { BroadcastReader } from './core/broadcast.reader.js';
export {
  BroadcastHeartbeat,
  heartbeatDelay,
  type HeartbeatPayload,
} from './core/broadcast.heartbeat.js';
export { BroadcastPublisher, type PublishOptions } from './core/broadcast.publisher.js';
export type * from './interfaces/broadcast-receipt.interface.js';
export type * from './interfaces/broadcast-roster.interface.js';
export type * from './interfaces/standard-schema.interface.js';
export { BroadcastRoster } from './core/broadcast-roster.js';
export {
  DEFAULT_RECEIPTS_TOPIC,
  DEFAULT_ROSTER_INTERVAL_MS,
} from './core/feature-options.resolver.js';
export { DEFAULT_RECEIPT_TIMEOUT_MS } from './core/publish-features.js';
export {
  defineBroadcast,
  type BroadcastDefinition,
  type BroadcastTopic,
} from './core/broadcast-definition.js';
export type { BroadcastTarget } from './core/targeting.js';
export { BroadcastHeaders } from './core/broadcast-headers.js';
export {
  resolveBroadcastOptions,
  type ResolvedBroadcastOptions,
} from './core/broadcast-options.resolver.js';
export {
  createIdStrategy,
  LowestFirstIdStrategy,
  RandomGrowingIdStrategy,
} from './core/id-strategy.js';
export { createAdvisoryLockProvider } from './locks/advisory-lock.factory.js';
