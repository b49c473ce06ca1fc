// `nestjs-kafka-broadcast`: the Nest module and the engine's contract. Needs only @nestjs/common and
// @nestjs/core; Terminus, microservices and TypeORM are loaded only by the features that use them
// (`nestjs-kafka-broadcast/terminus`, `/microservices`, and `lock.dataSource`).
export * from './engine.js';
export { BroadcastModule } from './nest/broadcast.module.js';
export {
  BROADCAST_MODULE_OPTIONS,
  type BroadcastModuleAsyncOptions,
  type BroadcastModuleExtras,
  type BroadcastOptionsFactory,
  type ExactBroadcastModuleAsyncOptions,
  type ExactBroadcastOptions,
} from './nest/broadcast.module-definition.js';
export { OnBroadcast, type OnBroadcastOptions } from './nest/on-broadcast.decorator.js';
// Injectable beside BroadcastReader and BroadcastGroupAllocator (from the engine entry): a view.
export { BroadcastHeartbeat } from './views/broadcast-heartbeat.view.js';
export type { HeartbeatRole } from './core/heartbeat/heartbeat-timing.js';
