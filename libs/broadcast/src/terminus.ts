// `nestjs-kafka-broadcast/terminus`: the health indicator (isAlive for liveness probes, isReady for
// readiness probes), the only part that loads @nestjs/terminus.
// Add it to the providers of a module that imports TerminusModule: BroadcastModule is global by
// default; with isGlobal: false, the module must also import one that re-exports BroadcastModule.
export { BroadcastHealthIndicator } from './nest/terminus/broadcast.health.js';
