// A worker process whose only work is one BroadcastEngine, as an app that only consumes runs one:
// no HTTP server, no stdin reader, no ref'd timer of its own. Whatever keeps it alive is the
// engine's. Spawned through Instances (test/support/faults/instances.ts) with `runner` set to
// this file; speaks the same stdout protocol as instance.mjs (a subset):
//
//   { event: 'loaded', pid }                      engine built
//   { event: 'ready', groupId, lockId, lockMode, startMs }   start() resolved
//   { event: 'state', state, groupId, lockId, waitingFor?, healthy }  every change, polled
//        (an unref'd timer); healthy: the strict readiness rule (health.strict: true:
//        ready and fresh; the default indicator rides a Kafka outage out, health-outage.spec.ts)
//   { event: 'message', topic, payload, partition, offset }  each broadcast received
//   { event: 'log', level, message }              the engine's log lines
//   { event: 'failed', message }                  start() rejected (the process exits 1)
//   { event: 'stopped', stopMs }                  SIGTERM: graceful stop done (exit 0)
//
// Config (env BROADCAST_INSTANCE_CONFIG, JSON): { name, brokers, prefix, lock: 'none' |
// 'postgres', topics, kafka?: { client, groupProtocol, ... } }. The engine runs with the
// library's defaults otherwise (consumer timings, lock check, heartbeat).
import pg from 'pg';

const config = JSON.parse(process.env.BROADCAST_INSTANCE_CONFIG ?? 'null');
const lib = process.env.BROADCAST_LIB || 'nestjs-kafka-broadcast';
const { BroadcastEngine } = await import(lib);
const { pgAdvisoryLocks } = await import(new URL('locks.js', lib).href);

function emit(event) {
  process.stdout.write(`${JSON.stringify({ ...event, at: Date.now() })}\n`);
}

const logger = {
  log: (message) => emit({ event: 'log', level: 'log', message }),
  warn: (message) => emit({ event: 'log', level: 'warn', message }),
  error: (message, stack) =>
    emit({ event: 'log', level: 'error', message: stack ? `${message}\n${stack}` : message }),
};

const pool =
  config.lock === 'postgres'
    ? new pg.Pool({
        host: '127.0.0.1',
        port: 5432,
        user: 'postgres',
        database: 'test',
        application_name: `bcast-${config.name}`.slice(0, 63),
      })
    : undefined;

const engine = new BroadcastEngine(
  {
    kafka: { brokers: config.brokers, clientId: `bcast-${config.name}`, ...config.kafka },
    topicPrefix: config.prefix,
    lock: pool ? { provider: pgAdvisoryLocks(pool) } : false,
    instanceId: config.name,
  },
  { logger },
);
for (const topic of config.topics ?? []) {
  engine.on(topic, (payload, message) =>
    emit({
      event: 'message',
      topic,
      payload,
      partition: message.partition,
      offset: message.offset,
    }),
  );
}

// Polled, never held: an unref'd timer keeps nothing alive.
let last;
const watch = setInterval(() => {
  const { state, groupId, lockId, waitingFor, lastLatencyMs } = engine.reader.status();
  const healthy =
    state === 'ready' &&
    lastLatencyMs !== undefined &&
    lastLatencyMs <= engine.options.maxStalenessMs;
  const key = `${state}|${groupId}|${lockId}|${waitingFor}|${healthy}`;
  if (key === last) return;
  last = key;
  emit({ event: 'state', state, groupId, lockId, waitingFor, healthy });
}, 25);
watch.unref();
// The test runner died: never outlive it (a poll of the parent's pid, unref'd as well).
const parent = process.ppid;
setInterval(() => process.ppid !== parent && void shutdown(), 500).unref();

let stopping;
function shutdown(code = 0) {
  stopping ??= (async () => {
    const began = Date.now();
    try {
      await engine.stop();
      await pool?.end();
    } catch (error) {
      emit({ event: 'log', level: 'error', message: `stop failed: ${String(error)}` });
      code ||= 4;
    }
    emit({ event: 'stopped', stopMs: Date.now() - began });
    process.exitCode = code;
  })();
  return stopping;
}
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());

emit({ event: 'loaded', pid: process.pid });
const startedAt = Date.now();
try {
  await engine.start();
} catch (error) {
  emit({ event: 'failed', message: error instanceof Error ? error.message : String(error) });
  await shutdown(1);
}
if (!stopping) {
  const s = engine.reader.status();
  emit({
    event: 'ready',
    groupId: s.groupId,
    lockId: s.lockId,
    lockMode: s.lockMode,
    startMs: Date.now() - startedAt,
  });
}
