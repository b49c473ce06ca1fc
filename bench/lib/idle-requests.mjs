#!/usr/bin/env node
// What an idle instance asks the broker for: Kafka requests by API over a quiet window, for
// one engine (lock-free, heartbeat at its default interval unless --heartbeat-ms) and for R.
//
//   KAFKA_BROKERS=127.0.0.1:31817 node bench/lib/idle-requests.mjs [--seconds=10] [--heartbeat-ms=N]
import { parseArgs } from 'node:util';
import { requestCounts, resetRequestCounts } from './request-counter.mjs';

const { createTopics } = await import('./fleet.mjs');
const { startRawConsumer } = await import('./common.mjs');
const { BroadcastEngine, engineTopics } = await import('./ours.mjs');
const { values: args } = parseArgs({
  options: { seconds: { type: 'string', default: '10' }, 'heartbeat-ms': { type: 'string' } },
});
const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:31817').split(',');
const prefix = `idle${Date.now().toString(36)}-`;
await createTopics(brokers, engineTopics(prefix, 'events'));
const quiet = { log() {}, debug() {}, warn() {}, error: (m) => process.stderr.write(`${m}\n`) };
const windowMs = Number(args.seconds) * 1000;

async function window() {
  resetRequestCounts();
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, windowMs));
  const perSec = Object.fromEntries(
    Object.entries(requestCounts()).map(([k, v]) => [
      k,
      +((v * 1000) / (Date.now() - t0)).toFixed(2),
    ]),
  );
  return {
    perSec,
    total: +Object.values(perSec)
      .reduce((a, b) => a + b, 0)
      .toFixed(2),
  };
}

const engine = new BroadcastEngine(
  {
    // kafkajs named: request-counter.mjs counts its requests (the default is @platformatic/kafka).
    kafka: { brokers, clientId: 'idle-ours', client: 'kafkajs' },
    topicPrefix: prefix,
    lock: false,
    ...(args['heartbeat-ms'] && { heartbeat: { intervalMs: Number(args['heartbeat-ms']) } }),
  },
  { logger: quiet },
).on('events', () => {});
await engine.start();
const ours = await window();
await engine.stop();
const raw = startRawConsumer({ brokers, prefix, topics: engineTopics(prefix, 'events') });
await raw.ready;
const r = await window();
await raw.stop();
console.log(JSON.stringify({ windowMs, ours, raw: r }, null, 1));
process.exit(0);
