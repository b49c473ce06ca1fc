// One broadcast instance in its own Node process, for fault tests that need real crashes
// (kill -9), real process exits and real database sessions. Spawned by test/support/faults/instances.ts.
//
//   node test/support/faults/instance.mjs '<json config>'      (or the config in env BROADCAST_INSTANCE_CONFIG)
//
// It imports the BUILT library, as an application would: 'nestjs-kafka-broadcast' (→ libs/broadcast/dist
// via the workspace link; run `npm run build:lib` first), or the build named by env BROADCAST_LIB
// (a file URL). The tests set BROADCAST_LIB to a private build of the same sources (see
// ensureLibBuilt() in test/support/faults/faults.ts), which no concurrent `npm run build:lib` rewrites.
//
// stdout: one JSON object per line
//   { event: 'loaded', pid }                              config read, DataSource open, engine built
//   { event: 'ready', groupId, lockId, lockMode, startMs } start() resolved
//   { event: 'state', state, groupId, lockId }            every change of state / group / lock id
//   { event: 'message', topic, payload, partition, offset, key, at, unproven? }
//        unproven: true (with the reader's `state`) when the handler ran after a group join and
//        before the reader was `ready` again: before exclusivity was proven
//   { event: 'published', id, startedAt, receipt? }       a 'publish' command resolved
//   { event: 'publish-failed', id, startedAt, message }   a 'publish' command rejected
//   { event: 'status', id?, ...status, healthy, maxStalenessMs, heartbeatsSent }   on 'status' / 'watch'
//   { event: 'log', level, message }                      the engine's log lines
//   { event: 'failed', message }                          startup failed (the process then exits 1)
//   { event: 'stopped', stopMs }                          graceful stop done (the process then exits 0)
// Every line also carries `at` (epoch ms, this process's clock, shifted by config.clockOffsetMs).
//
// stdin: one command per line
//   start            starts the engine when the config has deferStart (the process is already warm)
//   status [id]      one status line, echoing id
//   watch <ms>       a status line every <ms> ms (0 stops it)
//   stop             graceful stop, like SIGTERM
//   publish <json>   { id, topic, payload, to?, receipts? } through engine.publisher.publish
// SIGTERM / SIGINT / stdin closing (the test runner died): graceful stop, exit 0.
import { DataSource } from 'typeorm';

const config = JSON.parse(process.env.BROADCAST_INSTANCE_CONFIG ?? process.argv[2] ?? 'null');
if (!config || !Array.isArray(config.brokers) || typeof config.prefix !== 'string') {
  process.stderr.write(
    'instance.mjs: a JSON config { brokers, prefix, lock, topics, ... } is required\n',
  );
  process.exit(2);
}

// A host whose clock is off by clockOffsetMs (negative: behind). Shifted before the library and
// kafkajs load, so every Date.now() of this process carries it: the engine's, the records'
// CreateTime (kafkajs stamps them with it) and the `at` of every line printed here.
if (typeof config.clockOffsetMs === 'number' && config.clockOffsetMs !== 0) {
  const trueNow = Date.now;
  Date.now = () => trueNow() + config.clockOffsetMs;
}

const { BroadcastEngine } = await import(process.env.BROADCAST_LIB || 'nestjs-kafka-broadcast');

const STOP_GRACE_MS = config.stopGraceMs ?? 30_000;

function emit(event) {
  process.stdout.write(`${JSON.stringify({ ...event, at: Date.now() })}\n`);
}

const logger = {
  log: (message) => emit({ event: 'log', level: 'log', message }),
  warn: (message) => emit({ event: 'log', level: 'warn', message }),
  error: (message, stack) =>
    emit({ event: 'log', level: 'error', message: stack ? `${message}\n${stack}` : message }),
  debug: config.debug ? (message) => emit({ event: 'log', level: 'debug', message }) : undefined,
};

function dataSourceOptions(kind) {
  const applicationName = `bcast-${config.name ?? process.pid}`.slice(0, 63);
  if (kind === 'postgres') {
    return {
      type: 'postgres',
      host: '127.0.0.1',
      port: 5432,
      username: 'postgres',
      database: 'test',
      applicationName,
    };
  }
  if (kind === 'mariadb') {
    return {
      type: 'mariadb',
      host: '127.0.0.1',
      port: 3306,
      username: 'root',
      password: '',
      database: 'test',
    };
  }
  return undefined;
}

/**
 * kafka.groupProtocol from BROADCAST_GROUP_PROTOCOL on @platformatic/kafka and
 * @confluentinc/kafka-javascript (kafka-clients.ts).
 */
function groupProtocolOf(client) {
  const wanted = process.env.BROADCAST_GROUP_PROTOCOL;
  // No client: the library's default, @platformatic/kafka (installed in this repo).
  return ['platformatic', 'confluent'].includes(client ?? 'platformatic') && wanted
    ? { groupProtocol: wanted }
    : {};
}

function engineOptions() {
  const lockKind = config.lock ?? 'none';
  return {
    kafka: {
      brokers: config.brokers,
      clientId: `bcast-${config.name ?? process.pid}`,
      ...groupProtocolOf(config.kafka?.client),
      ...config.kafka,
    },
    topicPrefix: config.prefix,
    lock: lockKind === 'none' ? false : { checkIntervalMs: config.lockCheckIntervalMs ?? 500 },
    heartbeat: config.heartbeat ?? false,
    consumer: config.consumer ?? {
      sessionTimeoutMs: 6_000,
      heartbeatIntervalMs: 500,
      maxWaitTimeMs: 100,
    },
    instanceId: config.name,
    ...(config.maxGroups !== undefined ? { maxGroups: config.maxGroups } : {}),
    ...(config.handlerTimeoutMs !== undefined ? { handlerTimeoutMs: config.handlerTimeoutMs } : {}),
    ...(config.startupTimeoutMs !== undefined ? { startupTimeoutMs: config.startupTimeoutMs } : {}),
    ...(config.maxStalenessMs !== undefined
      ? { health: { maxStalenessMs: config.maxStalenessMs } }
      : {}),
    ...(config.topicOptions ? { topics: config.topicOptions } : {}),
    ...(config.groupBaseName !== undefined ? { groupBaseName: config.groupBaseName } : {}),
    ...(config.replay ? { replay: config.replay } : {}),
  };
}

let dataSource;
let engine;
let startedAt;
let stopping;

function status(extra = {}) {
  const s = engine.reader.status();
  const maxStalenessMs = engine.options.maxStalenessMs;
  // Exactly BroadcastHealthIndicator's rule.
  const healthy =
    s.state === 'ready' && s.lastLatencyMs !== undefined && s.lastLatencyMs <= maxStalenessMs;
  return {
    event: 'status',
    ...extra,
    ...s,
    healthy,
    maxStalenessMs,
    heartbeatsSent: engine.heartbeat.sent,
  };
}

// A group was joined (the engine's internal 'joined' step) since the reader was last seen `ready`.
let joinedSinceReady = false;
let lastState;
function emitStateChange() {
  if (!engine) return;
  const { state, groupId, lockId } = engine.reader.status();
  if (state === 'ready') joinedSinceReady = false;
  const key = `${state}|${groupId}|${lockId}`;
  if (key !== lastState) {
    lastState = key;
    emit({ event: 'state', state, groupId, lockId });
  }
}
const stateTimer = setInterval(emitStateChange, config.statePollMs ?? 25);

let watchTimer;

async function start() {
  if (startedAt) return;
  startedAt = Date.now();
  try {
    await engine.start();
  } catch (error) {
    emit({ event: 'failed', message: error instanceof Error ? error.message : String(error) });
    await shutdown(1);
    return;
  }
  const s = engine.reader.status();
  emit({
    event: 'ready',
    groupId: s.groupId,
    lockId: s.lockId,
    lockMode: s.lockMode,
    startMs: Date.now() - startedAt,
  });
}

function shutdown(code = 0) {
  stopping ??= (async () => {
    clearInterval(watchTimer);
    const began = Date.now();
    const forced = setTimeout(() => {
      emit({ event: 'log', level: 'error', message: `graceful stop exceeded ${STOP_GRACE_MS} ms` });
      process.exit(3);
    }, STOP_GRACE_MS);
    let exitCode = code;
    try {
      await engine?.stop();
      if (dataSource?.isInitialized) await dataSource.destroy();
    } catch (error) {
      emit({
        event: 'log',
        level: 'error',
        message: `stop failed: ${error instanceof Error ? error.stack : String(error)}`,
      });
      exitCode = exitCode || 4;
    }
    clearTimeout(forced);
    clearInterval(stateTimer);
    emit({ event: 'stopped', stopMs: Date.now() - began });
    process.exit(exitCode);
  })();
  return stopping;
}

// A publish through the engine, answered by one 'published' or 'publish-failed' line.
async function publish(json) {
  let request;
  try {
    request = JSON.parse(json);
  } catch {
    emit({ event: 'log', level: 'warn', message: `publish: not JSON: ${json}` });
    return;
  }
  const startedAt = Date.now();
  try {
    const receipt = await engine.publisher.publish(request.topic, request.payload, {
      ...(request.to ? { to: request.to } : {}),
      ...(request.receipts ? { receipts: request.receipts } : {}),
    });
    emit({ event: 'published', id: request.id, startedAt, ...(receipt ? { receipt } : {}) });
  } catch (error) {
    emit({
      event: 'publish-failed',
      id: request.id,
      startedAt,
      message: error instanceof Error ? error.message : String(error),
    });
  }
}

function command(line) {
  const [name, arg] = line.trim().split(/\s+/, 2);
  switch (name) {
    case '':
      return;
    case 'start':
      void start();
      return;
    case 'status':
      if (engine) emit(status(arg === undefined ? {} : { id: arg }));
      return;
    case 'watch': {
      clearInterval(watchTimer);
      const ms = Number(arg);
      if (ms > 0) watchTimer = setInterval(() => engine && emit(status()), ms);
      return;
    }
    case 'stop':
      void shutdown(0);
      return;
    case 'publish':
      if (engine) void publish(line.trim().slice('publish'.length).trim());
      return;
    default:
      emit({ event: 'log', level: 'warn', message: `unknown command: ${line}` });
  }
}

process.on('SIGTERM', () => void shutdown(0));
process.on('SIGINT', () => void shutdown(0));
process.on('unhandledRejection', (reason) => {
  emit({
    event: 'log',
    level: 'error',
    message: `unhandled rejection: ${reason instanceof Error ? reason.stack : String(reason)}`,
  });
});

let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  for (let i = pending.indexOf('\n'); i >= 0; i = pending.indexOf('\n')) {
    command(pending.slice(0, i));
    pending = pending.slice(i + 1);
  }
});
// The parent went away: never outlive it.
process.stdin.on('end', () => void shutdown(0));

const lockKind = config.lock ?? 'none';
const dsOptions = dataSourceOptions(lockKind);
if (dsOptions) dataSource = await new DataSource(dsOptions).initialize();
// The engine's internal step hook: 'joined' tells unproven handler calls; 'recover' and 'rejoin'
// report the reader's `recovering` at once, since a recovery that lands in the same group and
// lock id can be over between two polls (a soak saw one take 39 ms on a loaded machine).
const probe = (step) => {
  if (step === 'joined') joinedSinceReady = true;
  if (step === 'recover' || step === 'rejoin') emitStateChange();
};
engine = new BroadcastEngine(engineOptions(), { dataSource, logger, probe });
for (const topic of config.topics ?? []) {
  engine.on(topic, (payload, message) => {
    const { state } = engine.reader.status();
    if (state === 'ready') joinedSinceReady = false;
    const unproven = state !== 'ready' && joinedSinceReady ? { unproven: true, state } : {};
    emit({
      event: 'message',
      topic,
      payload,
      partition: message.partition,
      offset: message.offset,
      key: message.key,
      ...unproven,
    });
  });
}
emit({ event: 'loaded', pid: process.pid });
if (!config.deferStart) await start();
