// `nestjs-kafka-broadcast/engine`: the engine without the Nest layer. Loads neither @nestjs/* nor
// any optional peer: `new BroadcastEngine(options).on(topic, handler).start()`.
// Its reader, allocator and roster are typed as read-only views; its lifecycle is its own.
export { BroadcastEngine } from './views/broadcast-engine.view.js';
export type { BroadcastEngineDeps } from './engine/broadcast-engine.deps.js';
export { BroadcastGroupAllocator } from './views/broadcast-group-allocator.view.js';
export { BroadcastReader } from './views/broadcast-reader.view.js';
export { BroadcastPublisher } from './core/publishing/broadcast.publisher.js';
export type { PublishOptions } from './core/publishing/publish-options.js';
export { BroadcastAllocationError } from './errors/broadcast-allocation.error.js';
export { BroadcastOptionsError } from './errors/broadcast-options.error.js';
export { BroadcastStartupError } from './errors/broadcast-startup.error.js';
export { BroadcastStoppedError } from './errors/broadcast-stopped.error.js';
export { DeadLetterHeaders } from './core/dispatch/dead-letter-record.js';
export type * from './interfaces/advisory-lock.interface.js';
export type * from './interfaces/advisory-lock-factory.interface.js';
export type * from './interfaces/broadcast-failure-policy.interface.js';
export type * from './interfaces/broadcast-kafka-options.interface.js';
export type * from './interfaces/broadcast-instrumentation.interface.js';
export type * from './interfaces/broadcast-logger.interface.js';
export type * from './interfaces/broadcast-message.interface.js';
export type * from './interfaces/broadcast-module-options.interface.js';
export type * from './interfaces/broadcast-status.interface.js';
export type { LockSession, LockSessionSource } from './locks/lock-session.js';
export { BroadcastPublishError } from './errors/broadcast-publish.error.js';
export { BroadcastReceiptError } from './errors/broadcast-receipt.error.js';
export { BroadcastValidationError } from './errors/broadcast-validation.error.js';
export type * from './interfaces/broadcast-receipt.interface.js';
// Not LiveGroupMember: what a Kafka adapter reports to the roster, internal.
export type { RosterEvent, RosterInstance } from './interfaces/broadcast-roster.interface.js';
export type * from './interfaces/standard-schema.interface.js';
export { BroadcastRoster } from './views/broadcast-roster.view.js';
export type { RosterListener } from './core/features/roster/broadcast-roster.js';
export {
  defineBroadcast,
  type BroadcastDefinition,
  type BroadcastTopic,
} from './core/broadcast-definition.js';
export type { BroadcastTarget } from './core/features/targeting/targeting.js';
