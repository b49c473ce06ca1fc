// `nestjs-kafka-broadcast/engine`: the engine without the Nest layer. Loads neither @nestjs/* nor
// any optional peer: `new BroadcastEngine(options).on(topic, handler).start()`.
export { BroadcastEngine } from './engine/broadcast.engine.js';
export type { BroadcastEngineDeps } from './engine/broadcast-engine.deps.js';
export { BroadcastGroupAllocator } from './core/allocation/broadcast-group.allocator.js';
export { BroadcastReader } from './core/reading/broadcast.reader.js';
export { BroadcastHeartbeat, type HeartbeatPayload } from './core/heartbeat/broadcast.heartbeat.js';
export type { HeartbeatRole } from './core/heartbeat/heartbeat-timing.js';
export { BroadcastPublisher } from './core/publishing/broadcast.publisher.js';
export type { PublishOptions } from './core/publishing/publish-options.js';
export type { ResolvedBroadcastOptions } from './core/options/broadcast-options.resolver.js';
export type { ResolvedFeatureOptions } from './core/options/feature-options.resolver.js';
export type { ResolvedFailureOptions } from './core/options/failure-options.resolver.js';
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
export type { GroupAttempt } from './errors/broadcast-allocation.error.js';
export { BroadcastPublishError } from './errors/broadcast-publish.error.js';
export { BroadcastReceiptError } from './errors/broadcast-receipt.error.js';
export { BroadcastValidationError } from './errors/broadcast-validation.error.js';
export type * from './interfaces/broadcast-receipt.interface.js';
export type * from './interfaces/broadcast-roster.interface.js';
export type * from './interfaces/standard-schema.interface.js';
export { BroadcastRoster, type RosterListener } from './core/features/roster/broadcast-roster.js';
export {
  defineBroadcast,
  type BroadcastDefinition,
  type BroadcastTopic,
} from './core/broadcast-definition.js';
export type { BroadcastTarget } from './core/features/targeting/targeting.js';
