export * from './engine.js';
export { BroadcastModule } from './broadcast.module.js';
export { BROADCAST_MODULE_OPTIONS } from './broadcast.module-definition.js';
export {
  OnBroadcast,
  type OnBroadcastOptions,
} from './on-broadcast.decorator.js';
export { BroadcastHealthIndicator } from './broadcast.health.js';
export { BroadcastTransport } from './broadcast.transport.js';
export { BroadcastContext } from './broadcast.context.js';
export { BroadcastClient } from './broadcast.client.js';
export { BroadcastMetadataAccessor } from './broadcast-metadata.accessor.js';
export { BroadcastExplorer } from './broadcast.explorer.js';
