#!/usr/bin/env node
// What an idle instance asks the broker for: Kafka requests by API over a quiet window, for
// one engine (lock-free, heartbeat at its default interval unless --heartbeat-ms) and for R.
//
//   KAFKA_BROKERS=127.0.0.1:31817 node bench/lib/idle-requests.mjs [--seconds=10] [--heartbeat-ms=N]
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';

const require = createRequire(import.meta.url);
const Connection = require('kafkajs/src/network/connection.js');
const names = {
  0: 'Produce',
  1: 'Fetch',
  2: 'ListOffsets',
  3: 'Metadata',
  8: 'OffsetCommit',
  9: 'OffsetFetch',
  10: 'FindCoordinator',
  11: 'JoinGroup',
  12: 'Heartbeat',
  13: 'LeaveGroup',
  14: 'SyncGroup',
  15: 'DescribeGroups',
  16: 'ListGroups',
  18: 'ApiVersions',
  19: 'CreateTopics',
  42: 'DeleteGroups',
};
let counts = {};
const send = Connection.prototype.send;
Connection.prototype.send = function (args) {
  const api = names[args?.request?.apiKey] ?? args?.request?.apiKey;
  counts[api] = (counts[api] ?? 0) + 1;
  return send.apply(this, [args]);
};
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
  counts = {};
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, windowMs));
  const perSec = Object.fromEntries(
    Object.entries(counts).map(([k, v]) => [k, +((v * 1000) / (Date.now() - t0)).toFixed(2)]),
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
    kafka: { brokers, clientId: 'idle-ours' },
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
