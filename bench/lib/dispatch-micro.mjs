// In-process cost of the dispatch path per message (no broker): the dispatcher's sink fed with
// records shaped like kafkajs's, instrumentation off / metrics only / every span sampled.
// Usage: node bench/lib/dispatch-micro.mjs [off|metrics|ratio|on|floor] [messages]
// (ratio: traces sampled 1 in 100 at the root, ParentBased; on: every span sampled; floor: the
// library's instrumentation off and the handler wrapped in the least a per-call span through the
// SDK takes, sampled 1 in 100 like ratio: see minimalSpans in otel-sdk.mjs)
import { minimalSpans, registerSdk } from './otel-sdk.mjs';
import { BroadcastDispatcher } from '../../libs/broadcast/dist/esm/core/dispatch/broadcast.dispatcher.js';
import { BroadcastHandlerRegistry } from '../../libs/broadcast/dist/esm/core/dispatch/broadcast-handler.registry.js';
import { OpenTelemetryInstrumentation } from '../../libs/broadcast/dist/esm/telemetry/open-telemetry.instrumentation.js';

const side = process.argv[2] ?? 'off';
const total = Number(process.argv[3] ?? 300_000);
if (side !== 'off') registerSdk(side === 'on' ? 'all' : side === 'metrics' ? false : 'ratio');
const registry = new BroadcastHandlerRegistry();
let handled = 0;
const noop = () => void handled++;
registry.add('otel', side === 'floor' ? minimalSpans('process p.otel', noop) : noop, 'noop');
const logger = { log() {}, warn() {}, error() {}, debug() {} };
const dispatcher = new BroadcastDispatcher(
  registry,
  { topicPrefix: 'p.', heartbeatTopic: 'hb', handlerTimeoutMs: 1000 },
  logger,
);
if (side !== 'off' && side !== 'floor')
  dispatcher.instrumentation = new OpenTelemetryInstrumentation(
    {
      instanceId: 'i1',
      topicPrefix: 'p.',
      groupId: () => 'p.svc-1',
      status: () => ({}),
      heartbeats: () => ({ sent: 0, received: 0 }),
    },
    { traces: true, metrics: true },
  );
const templates = Array.from({ length: 1000 }, (_, i) => ({
  key: null,
  value: Buffer.from(`{"i":${i}}`),
  // parented: a traceparent as the engine's publisher writes it, 1 in 100 sampled.
  headers: process.env.PARENTED
    ? {
        traceparent: `00-${'ab'.repeat(15)}${String(i).padStart(2, '0').slice(-2)}-${'cd'.repeat(8)}-0${i % 100 === 0 ? 1 : 0}`,
      }
    : {},
  timestamp: String(Date.now()),
}));
// Offsets rise, as a partition's do: the dispatcher's guard refuses an offset it handed over
// already (until 2026-12-04 they repeated every 1000, so all but the first 1000 were refused).
let offset = 0;
function round(n) {
  for (let i = 0; i < n; i++) {
    const t = templates[i % 1000];
    dispatcher.sink('p.otel', 0, { ...t, offset: String(offset++) });
  }
}
round(50_000); // warm up
const cpu0 = process.cpuUsage();
const t0 = performance.now();
round(total);
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
console.log(
  JSON.stringify({
    side,
    us: +((ms * 1000) / total).toFixed(3),
    cpuUs: +((cpu.user + cpu.system) / total).toFixed(3),
    handled,
  }),
);
process.exit(0);
