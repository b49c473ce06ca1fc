// The engine without the NestJS layer: `import { BroadcastEngine } from 'nestjs-kafka-broadcast/engine'`
// loads neither @nestjs/* nor @nestjs/terminus.
export * from './broadcast.constants.js';
export * from './errors/index.js';
export type * from './interfaces/advisory-lock.interface.js';
export type * from './interfaces/broadcast-instrumentation.interface.js';
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
