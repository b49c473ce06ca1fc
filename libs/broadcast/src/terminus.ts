// `nestjs-kafka-broadcast/terminus`: the health indicator, the only part that loads @nestjs/terminus.
// Add it to the providers of a module that imports TerminusModule and BroadcastModule.
export { BroadcastHealthIndicator } from './broadcast.health.js';
