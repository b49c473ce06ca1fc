#!/usr/bin/env node
// Where a start goes: Kafka requests by API and client CPU for one start of ours (lock-free and
// PostgreSQL locks) and of R, each on a fresh prefix, after one warm-up start of each.
//
//   KAFKA_BROKERS=127.0.0.1:31817 node bench/lib/fleet-profile.mjs [--reps=5]
import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';
import { requestCounts, resetRequestCounts } from './request-counter.mjs';

const { createTopics } = await import('./fleet.mjs');
const { engineLogger, startRawConsumer, summary } = await import('./common.mjs');
const { BroadcastEngine, engineTopics } = await import('./ours.mjs');
const { values: args } = parseArgs({ options: { reps: { type: 'string', default: '5' } } });
const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:31817').split(',');
const run = `prof${Date.now().toString(36)}`;

async function one(side, i) {
  const prefix = `${run}-${side}-${i}-`;
  await createTopics(brokers, engineTopics(prefix, 'events'));
  let dataSource;
  if (side === 'postgres')
    dataSource = await new DataSource({
      type: 'postgres',
      host: '127.0.0.1',
      port: 5432,
      username: 'postgres',
      database: 'test',
      extra: { max: 2 },
    }).initialize();
  resetRequestCounts();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let stop;
  if (side === 'raw') {
    const c = startRawConsumer({ brokers, prefix, topics: engineTopics(prefix, 'events') });
    await c.ready;
    stop = c.stop;
  } else {
    const engine = new BroadcastEngine(
      {
        // kafkajs named: its requests are what request-counter.mjs counts (the default is
        // @platformatic/kafka when both are installed).
        kafka: { brokers, client: 'kafkajs' },
        topicPrefix: prefix,
        lock: side === 'postgres' ? {} : false,
        heartbeat: false,
      },
      { dataSource, logger: engineLogger },
    ).on('events', () => {});
    await engine.start();
    stop = () => engine.stop();
  }
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const requests = requestCounts();
  await stop();
  await dataSource?.destroy();
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, requests };
}

const report = {};
for (const side of ['raw', 'lockfree', 'postgres']) {
  await one(side, 'warm');
  const runs = [];
  for (let i = 0; i < Number(args.reps); i++) runs.push(await one(side, i));
  report[side] = {
    readyMs: summary(runs.map((r) => r.ms)),
    cpuMs: summary(runs.map((r) => r.cpuMs)),
    requests: runs.at(-1).requests,
    requestsTotal: Object.values(runs.at(-1).requests).reduce((a, b) => a + b, 0),
  };
}
console.log(JSON.stringify(report, null, 1));
