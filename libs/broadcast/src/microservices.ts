// `nestjs-kafka-broadcast/microservices`: the transport, client and context, the only parts that load
// @nestjs/microservices. Add BroadcastTransport / BroadcastClient to the providers of any module
// (BroadcastModule is global by default; with isGlobal: false, of a module that sees it).
export { BROADCAST_TRANSPORT } from './broadcast.constants.js';
export { BroadcastClient } from './broadcast.client.js';
export { BroadcastContext } from './broadcast.context.js';
export { BroadcastTransport } from './broadcast.transport.js';
export { BroadcastRecord } from './broadcast-record.js';
export type { BroadcastMessage } from './interfaces/broadcast-message.interface.js';
export type { PublishOptions } from './core/broadcast.publisher.js';
