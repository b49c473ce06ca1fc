// `nestjs-kafka-broadcast/microservices`: the transport, client and context, the only parts that load
// @nestjs/microservices. Add BroadcastTransport / BroadcastClient to the providers of any module
// (BroadcastModule is global by default; with isGlobal: false, of a module that sees it).
export { BROADCAST_TRANSPORT } from './nest/broadcast.constants.js';
export { BroadcastClient } from './nest/microservices/broadcast.client.js';
export { BroadcastContext } from './nest/microservices/broadcast.context.js';
export { BroadcastTransport } from './nest/microservices/broadcast.transport.js';
export { BroadcastRecord } from './nest/microservices/broadcast-record.js';
export type { BroadcastMessage } from './interfaces/broadcast-message.interface.js';
export type { PublishOptions } from './core/publishing/publish-options.js';
