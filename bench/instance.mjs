#!/usr/bin/env node
// One broadcast reader in its own process, for the benchmarks that need real processes (crashes, RSS).
//
//   node bench/instance.mjs --mode=lock|lockfree|raw|bare --brokers=h:p[,h:p] --prefix=P [--topic=T]
//                           [--session-timeout=ms] [--heartbeat-ms=ms] [--client=kafkajs|platformatic|confluent]
//
//   lock      BroadcastEngine with PostgreSQL advisory locks (its own TypeORM DataSource)
//   lockfree  BroadcastEngine, lock: false
//   raw       baseline R: a raw consumer with a fresh random group `<prefix>svc-<uuid>`
//   bare      nothing but Node itself (memory reference)
//   import-lib / import-kafkajs / import-platformatic / import-confluent   Node after importing the
//             library (its entry, see --entry) / kafkajs / @platformatic/kafka /
//             @confluentinc/kafka-javascript, idle (memory and import references)
//   import-lib-kafkajs / import-lib-platformatic / import-lib-confluent   Node after importing the
//             library and that client (what an engine on that client has loaded once started: ours'
//             own import)
//
//   --entry   the library entry ours imports: `engine` (default; `nestjs-kafka-broadcast/engine`,
//             no NestJS, what a process without Nest imports, as R's has no Nest either) or
//             `index` (the package barrel with the Nest module, which loads @nestjs/*).
//             BENCH_LIB=<path to a build's entry .js> overrides both.
//   --datasource  raw: open the same TypeORM DataSource as lock mode before the consumer starts,
//             as an app with TypeORM has it (the lock-mode process-cold comparison, benchmark 7)
//   --gap-ms  ours: ms between registering the handler and start() (an app's other init)
//   --engine-first  lock mode: build the engine before the DataSource connects, as the Nest module
//             does (its engine provider is made beside TypeORM's; the DataSource is found at start)
//   --client  the engine's adapter (`kafka.client`) in lock and lockfree, the raw client in raw
//             (default kafkajs). Nothing of the bench's own libraries is imported: they load kafkajs.
//             confluent needs @confluentinc/kafka-javascript in node_modules
//             (scripts/confluent-client.mjs); its raw mode is bench/lib/raw-confluent.mjs's R.
//
// stdout protocol, one line each: `READY {json}` once ready, `GOT {payload}` per message on the topic,
// `STOPPED` after a clean stop. SIGTERM stops cleanly (leave group, unlock, disconnect) and exits 0.
// Anything else goes to stderr.
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const { values: args } = parseArgs({
  options: {
    mode: { type: 'string', default: 'lock' },
    brokers: { type: 'string' },
    prefix: { type: 'string', default: 'bench-instance-' },
    topic: { type: 'string', default: 'events' },
    'session-timeout': { type: 'string', default: '10000' },
    'heartbeat-ms': { type: 'string' },
    client: { type: 'string', default: 'kafkajs' },
    // Ours: what the app does between registering its handlers and start() (Nest: the other
    // modules' init), in ms; 0 starts at once, as before.
    'gap-ms': { type: 'string', default: '0' },
    'engine-first': { type: 'boolean', default: false },
    entry: { type: 'string', default: 'engine' },
    datasource: { type: 'boolean', default: false },
  },
});
const sessionTimeoutMs = Number(args['session-timeout']);
const say = (line) => process.stdout.write(`${line}\n`);
const logger = {
  log: () => {},
  debug: () => {},
  warn: (m) => process.stderr.write(`[instance ${process.pid} warn] ${m}\n`),
  error: (m) => process.stderr.write(`[instance ${process.pid} error] ${m}\n`),
};

let stop = async () => {};
let stopping = false;
process.on('SIGTERM', async () => {
  if (stopping) return;
  stopping = true;
  try {
    await stop();
    say('STOPPED');
    process.exit(0);
  } catch (error) {
    logger.error(`stop failed: ${error?.stack ?? error}`);
    process.exit(1);
  }
});

const brokers = args.brokers?.split(',');
/** The built package's entry (--entry), or BENCH_LIB (another build's entry) for an A/B. */
function libSpecifier() {
  if (process.env.BENCH_LIB) return pathToFileURL(resolve(process.env.BENCH_LIB)).href;
  if (args.entry === 'index') return 'nestjs-kafka-broadcast';
  if (args.entry === 'engine') return 'nestjs-kafka-broadcast/engine';
  throw new Error(`unknown --entry ${args.entry}`);
}
/** The TypeORM DataSource of lock mode (and of raw --datasource), initialized unless `later`. */
async function openDataSource(later = false) {
  const { DataSource } = await import('typeorm');
  const dataSource = new DataSource({
    type: 'postgres',
    host: process.env.PGHOST ?? '127.0.0.1',
    port: Number(process.env.PGPORT ?? 5432),
    username: process.env.PGUSER ?? 'postgres',
    database: process.env.PGDATABASE ?? 'test',
    extra: { max: 4 },
  });
  if (!later) await dataSource.initialize();
  return dataSource;
}
const t0 = performance.now();
/** The process's CPU time so far (user + system), ms: what its imports and start cost, load aside. */
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
if (args.mode === 'bare' || args.mode.startsWith('import-')) {
  // Memory references: Node alone, or Node after importing one package and doing nothing else.
  if (args.mode === 'import-lib' || args.mode.startsWith('import-lib-'))
    await import(libSpecifier());
  // The library and the client its engine loads at start: ours' own import, as R's is its client's.
  if (args.mode === 'import-lib-kafkajs') await import('kafkajs');
  if (args.mode === 'import-lib-platformatic') await import('@platformatic/kafka');
  // The package entry, as the adapter imports it (its RdKafka namespace is in the same module).
  if (args.mode === 'import-lib-confluent') await import('@confluentinc/kafka-javascript');
  if (args.mode === 'import-kafkajs') await import('kafkajs');
  if (args.mode === 'import-platformatic') await import('@platformatic/kafka');
  if (args.mode === 'import-confluent') await import('@confluentinc/kafka-javascript');
  say(
    `READY ${JSON.stringify({ mode: args.mode, uptimeMs: process.uptime() * 1000, cpuMs: cpuMs() })}`,
  );
  setInterval(() => {}, 1 << 30);
} else if (args.mode === 'raw' && args.client === 'platformatic') {
  // R on @platformatic/kafka, as bench/lib/raw-platformatic.mjs builds it.
  const dataSource = args.datasource ? await openDataSource() : undefined;
  const { randomUUID } = await import('node:crypto');
  const { Consumer } = await import('@platformatic/kafka');
  const groupId = `${args.prefix}svc-${randomUUID()}`;
  const consumer = new Consumer({
    bootstrapBrokers: brokers,
    clientId: 'bench-instance-raw-platformatic',
    groupId,
    sessionTimeout: sessionTimeoutMs,
    heartbeatInterval: Math.min(1000, Math.floor(sessionTimeoutMs / 3)),
    rebalanceTimeout: Math.max(sessionTimeoutMs, 10_000),
    maxWaitTime: 250,
    metadataMaxAge: 30_000,
    maxBytesPerPartition: 1_048_576,
    autocreateTopics: false,
  });
  let memberId;
  consumer.on('consumer:group:join', (payload) => (memberId = payload.memberId));
  stop = async () => {
    await consumer.close(true);
    await dataSource?.destroy();
  };
  const started = performance.now();
  const stream = await consumer.consume({
    topics: [args.prefix + args.topic],
    mode: 'committed',
    fallbackMode: 'latest',
  });
  // The stream is made after the join: its first fetch answer is the first fetch after the join.
  stream.once('fetch', () =>
    say(
      `READY ${JSON.stringify({ mode: 'raw', client: 'platformatic', groupId, memberId, startMs: performance.now() - started, uptimeMs: process.uptime() * 1000, cpuMs: cpuMs() })}`,
    ),
  );
  for await (const message of stream) say(`GOT ${message.value.toString('utf8')}`);
} else if (args.mode === 'raw' && args.client === 'confluent') {
  // R on @confluentinc/kafka-javascript, as bench/lib/raw-confluent.mjs builds it (that module
  // loads the bench's common.mjs, hence kafkajs, so it is repeated here): a librdkafka
  // KafkaConsumer, fresh random group, latest offset, auto-commit, READ_COMMITTED, consume calls of
  // at most 100 ms; ready at the first end-of-log event after the assignment.
  const dataSource = args.datasource ? await openDataSource() : undefined;
  const { randomUUID } = await import('node:crypto');
  const { RdKafka } = await import('@confluentinc/kafka-javascript');
  const groupId = `${args.prefix}svc-${randomUUID()}`;
  const called = (call) =>
    new Promise((resolve, reject) => call((err, value) => (err ? reject(err) : resolve(value))));
  const consumer = new RdKafka.KafkaConsumer(
    {
      'bootstrap.servers': brokers.join(','),
      'client.id': 'bench-instance-raw-confluent',
      'group.id': groupId,
      rebalance_cb: true,
      'session.timeout.ms': sessionTimeoutMs,
      'heartbeat.interval.ms': Math.min(1000, Math.floor(sessionTimeoutMs / 3)),
      'fetch.wait.max.ms': 250,
      'max.poll.interval.ms': Math.max(sessionTimeoutMs, 10_000),
      'topic.metadata.refresh.interval.ms': 30_000,
      'enable.auto.commit': true,
      'isolation.level': 'read_committed',
      'enable.partition.eof': true,
    },
    { 'auto.offset.reset': 'latest' },
  );
  let assigned = false;
  let announced = false;
  // ERR__ASSIGN_PARTITIONS: the rebalance event that hands over an assignment.
  consumer.on('rebalance', (err) => (assigned ||= err?.code === -175));
  consumer.on('partition.eof', () => {
    if (!assigned || announced) return;
    announced = true;
    say(
      `READY ${JSON.stringify({ mode: 'raw', client: 'confluent', groupId, startMs: performance.now() - started, uptimeMs: process.uptime() * 1000, cpuMs: cpuMs() })}`,
    );
  });
  consumer.setDefaultConsumeTimeout(100);
  let closing = false;
  let loop = Promise.resolve();
  stop = async () => {
    closing = true;
    await called((cb) => consumer.disconnect(cb)).catch(() => undefined);
    await loop.catch(() => undefined);
    await dataSource?.destroy();
  };
  const started = performance.now();
  await called((cb) => consumer.connect({}, cb));
  consumer.subscribe([args.prefix + args.topic]);
  loop = (async () => {
    while (!closing) {
      const records = await called((cb) => consumer.consume(100, cb));
      for (const m of records) say(`GOT ${m.value.toString('utf8')}`);
    }
  })();
  // A consume that fails while stopping is the disconnect's; before it, the process fails.
  loop.catch((error) => {
    if (closing) return;
    logger.error(`consume failed: ${error?.stack ?? error}`);
    process.exit(1);
  });
} else if (args.mode === 'raw') {
  const dataSource = args.datasource ? await openDataSource() : undefined;
  const { randomUUID } = await import('node:crypto');
  const { default: kafkajs } = await import('kafkajs');
  const kafka = new kafkajs.Kafka({
    brokers,
    clientId: 'bench-instance-raw',
    logLevel: kafkajs.logLevel.NOTHING,
  });
  const groupId = `${args.prefix}svc-${randomUUID()}`;
  const consumer = kafka.consumer({
    groupId,
    sessionTimeout: sessionTimeoutMs,
    heartbeatInterval: Math.min(1000, Math.floor(sessionTimeoutMs / 3)),
    maxWaitTimeInMs: 250,
    rebalanceTimeout: Math.max(sessionTimeoutMs, 10_000),
    metadataMaxAge: 30_000,
  });
  let memberId;
  let joined = false;
  let announced = false;
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    memberId = payload.memberId;
    joined = true;
  });
  consumer.on(consumer.events.FETCH, () => {
    if (!joined || announced) return;
    announced = true;
    say(
      `READY ${JSON.stringify({ mode: 'raw', groupId, memberId, startMs: performance.now() - started, uptimeMs: process.uptime() * 1000, cpuMs: cpuMs() })}`,
    );
  });
  stop = async () => {
    await consumer.disconnect();
    await dataSource?.destroy();
  };
  const started = performance.now();
  await consumer.connect();
  await consumer.subscribe({
    topics: [args.prefix + args.topic],
    fromBeginning: false,
  });
  await consumer.run({
    eachMessage: async ({ message }) => say(`GOT ${message.value.toString('utf8')}`),
  });
} else {
  const { BroadcastEngine } = await import(libSpecifier());
  let dataSource;
  if (args.mode === 'lock') {
    // --engine-first: the engine is built before TypeORM connects (given the DataSource to find at
    // start), as the Nest module builds it beside the other providers; else after, as before.
    dataSource = await openDataSource(args['engine-first']);
  } else if (args.mode !== 'lockfree') {
    throw new Error(`unknown --mode ${args.mode}`);
  }
  const engine = new BroadcastEngine(
    {
      kafka: {
        brokers,
        clientId: `bench-instance-${args.mode}`,
        // Always named: without it the library picks @platformatic/kafka when both are installed
        // (since 2026-12-03), and the kafkajs rows of #7 measured that client (the full run of
        // 2026-12-05: ours-kafkajs had ours-platformatic's RSS to the MiB).
        client: args.client,
      },
      topicPrefix: args.prefix,
      lock: args.mode === 'lock' ? {} : false,
      consumer: { sessionTimeoutMs },
      ...(args['heartbeat-ms'] ? { heartbeat: { intervalMs: Number(args['heartbeat-ms']) } } : {}),
    },
    { dataSource: args['engine-first'] && dataSource ? () => dataSource : dataSource, logger },
  );
  if (args['engine-first'] && dataSource) await dataSource.initialize();
  engine.on(args.topic, (payload) => say(`GOT ${JSON.stringify(payload)}`));
  if (Number(args['gap-ms']) > 0) await new Promise((r) => setTimeout(r, Number(args['gap-ms'])));
  stop = async () => {
    await engine.stop();
    await dataSource?.destroy();
  };
  const started = performance.now();
  await engine.start();
  const memberId = engine.reader.claim?.value?.membership?.memberId;
  say(
    `READY ${JSON.stringify({
      mode: args.mode,
      groupId: engine.reader.groupId,
      memberId,
      startMs: performance.now() - started,
      uptimeMs: process.uptime() * 1000,
      cpuMs: cpuMs(),
      sinceImportMs: performance.now() - t0,
    })}`,
  );
}
