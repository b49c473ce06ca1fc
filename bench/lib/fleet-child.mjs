#!/usr/bin/env node
// One process hosting K instances of a fleet (benchmarks 8 and 9).
//
//   node bench/lib/fleet-child.mjs '<json config>'
//   config: { mode: 'lockfree'|'postgres'|'mariadb'|'raw', count, brokers: [..], prefix, topic,
//             heartbeatMs?, maxGroups?, db?: { host, port, user, password?, database },
//             client?: 'kafkajs'|'platformatic'|'confluent', groupProtocol?: 'classic'|'consumer',
//             lib?: another build's index.js (ours; default the built package) }
//
// stdin commands, one per line; stdout answers, one JSON line each:
//   (on start)  PREPARED {}                 DataSources initialized, nothing started yet
//   GO          READY {readyAt:[epoch ms], cpuMs, requests, groups:[..], rssKiB}
//   STATS       STATS {requests, heartbeatsSent, rssKiB, cpuMs}
//   STOP        STOPPED {cpuMs, requests}   then exits
// FLEET_PROF_DIR=dir: a CPU profile of each child from GO to READY, dir/<mode>-<pid>.cpuprofile
// (the inspector's sampling slows the start: compare profiles, not the figures of such a run).
// Requests are counted for every connection of this process (ours and R alike): on kafkajs by
// wrapping Connection.send, on @platformatic/kafka from its plt:kafka:connections:api channel. On
// @confluentinc/kafka-javascript they are not (librdkafka sends them inside its native threads,
// and ours' clients are the adapter's): `requests` is null there.
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { tracingChannel } from 'node:diagnostics_channel';
import { pathToFileURL } from 'node:url';

const config = JSON.parse(process.argv[2]);
/**
 * The Kafka client of this fleet, ours and R alike: 'kafkajs' (default), 'platformatic' or
 * 'confluent' (needs @confluentinc/kafka-javascript in node_modules: scripts/confluent-client.mjs).
 */
const client = config.client ?? 'kafkajs';
/** Requests sent so far; null where they are not counted (confluent). */
let requests = client === 'confluent' ? null : 0;
/** FLEET_REQUEST_KINDS=1 (@platformatic/kafka): requests of the start by API key, for diagnosis. */
const kinds = process.env.FLEET_REQUEST_KINDS ? new Map() : undefined;
let kafkajs;
if (client === 'kafkajs') {
  const require = createRequire(import.meta.url);
  const Connection = require('kafkajs/src/network/connection.js');
  const send = Connection.prototype.send;
  Connection.prototype.send = function (...args) {
    requests++;
    return send.apply(this, args);
  };
  ({ default: kafkajs } = await import('kafkajs'));
} else if (client === 'platformatic') {
  // @platformatic/kafka traces every request it sends on this channel (no import needed here).
  tracingChannel('plt:kafka:connections:api').subscribe({
    start(context) {
      requests++;
      if (kinds) kinds.set(context.apiKey, (kinds.get(context.apiKey) ?? 0) + 1);
    },
    end() {},
    asyncStart() {},
    asyncEnd() {},
    error() {},
  });
}
const say = (tag, data = {}) => process.stdout.write(`${tag} ${JSON.stringify(data)}\n`);
const quiet = { log() {}, debug() {}, warn() {}, error: (m) => process.stderr.write(`${m}\n`) };
// FLEET_LOG_DIR=dir: every instance's warnings and errors also go to dir/<pid>.log (for diagnosis).
if (process.env.FLEET_LOG_DIR) {
  const { appendFileSync } = await import('node:fs');
  const file = `${process.env.FLEET_LOG_DIR}/${process.pid}.log`;
  const line = (level) => (m, fields) =>
    appendFileSync(
      file,
      `${new Date().toISOString()} ${level} ${m} ${fields ? JSON.stringify(fields) : ''}\n`,
    );
  quiet.warn = line('WARN');
  // FLEET_LOG_DEBUG=1: debug lines too (KIP-848 collisions are logged at debug, 'joined together').
  if (process.env.FLEET_LOG_DEBUG) quiet.debug = line('DEBUG');
  const error = quiet.error;
  // BroadcastLogger.error(message, stack, fields)
  quiet.error = (m, stack, fields) => (line('ERROR')(m, fields ?? stack), error(m));
}
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const rssKiB = () =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${process.pid}/status`, 'utf8'))?.[1]);
const HEARTBEAT_TOPIC = 'broadcast.heartbeat.v1';
// Every engine reads the receipts topic too (receipts are on by default), so R subscribes to it.
const RECEIPTS_TOPIC = 'broadcast.receipts.v1';

async function dataSourceFor(mode) {
  if (mode !== 'postgres' && mode !== 'mariadb') return undefined;
  const { DataSource } = await import('typeorm');
  const db = config.db ?? {};
  const ds = new DataSource({
    type: mode,
    host: db.host ?? '127.0.0.1',
    port: db.port ?? (mode === 'postgres' ? 5432 : 3306),
    username: db.user ?? (mode === 'postgres' ? 'postgres' : 'root'),
    password: db.password ?? '',
    database: db.database ?? 'test',
    extra: mode === 'postgres' ? { max: 2 } : { connectionLimit: 2 },
  });
  return ds.initialize();
}

/** One instance: start() resolves when ready, stop() cleans up; groupId once ready. */
async function prepareInstance(i) {
  const topics = [
    config.prefix + config.topic,
    config.prefix + HEARTBEAT_TOPIC,
    config.prefix + RECEIPTS_TOPIC,
  ];
  if (config.mode === 'raw' && client !== 'kafkajs') {
    // R on @platformatic/kafka or @confluentinc/kafka-javascript: the same consumer options.
    const startRaw =
      client === 'confluent'
        ? (await import('./raw-confluent.mjs')).startRawConfluentConsumer
        : (await import('./raw-platformatic.mjs')).startRawPlatformaticConsumer;
    let raw;
    return {
      groupId: () => raw?.groupId,
      heartbeatsSent: () => 0,
      state: () => 'ready',
      start: async () => {
        raw = startRaw({
          brokers: config.brokers,
          prefix: config.prefix,
          topics,
          clientId: `fleet-raw-${i}`,
          groupProtocol: config.groupProtocol,
        });
        await raw.ready;
      },
      stop: () => raw?.stop(),
    };
  }
  if (config.mode === 'raw') {
    const kafka = new kafkajs.Kafka({
      brokers: config.brokers,
      clientId: `fleet-raw-${i}`,
      logLevel: kafkajs.logLevel.NOTHING,
    });
    const groupId = `${config.prefix}svc-${randomUUID()}`;
    const consumer = kafka.consumer({
      groupId,
      sessionTimeout: 10_000,
      heartbeatInterval: 1_000,
      maxWaitTimeInMs: 250,
      rebalanceTimeout: 10_000,
      metadataMaxAge: 30_000,
    });
    return {
      groupId: () => groupId,
      heartbeatsSent: () => 0,
      state: () => 'ready',
      start: () =>
        new Promise((resolve, reject) => {
          let joined = false;
          consumer.on(consumer.events.GROUP_JOIN, () => (joined = true));
          const off = consumer.on(consumer.events.FETCH, () => {
            if (!joined) return;
            off();
            resolve();
          });
          consumer
            .connect()
            .then(() =>
              consumer.subscribe({
                topics: [
                  config.prefix + config.topic,
                  config.prefix + HEARTBEAT_TOPIC,
                  config.prefix + RECEIPTS_TOPIC,
                ],
                fromBeginning: false,
              }),
            )
            .then(() => consumer.run({ eachMessage: async () => {} }))
            .catch(reject);
        }),
      stop: () => consumer.disconnect(),
    };
  }
  const { BroadcastEngine } = await import(
    config.lib ? pathToFileURL(config.lib).href : 'nestjs-kafka-broadcast'
  );
  const dataSource = await dataSourceFor(config.mode);
  const engine = new BroadcastEngine(
    {
      kafka: {
        brokers: config.brokers,
        clientId: `fleet-${config.mode}-${i}`,
        client,
        ...(config.groupProtocol && client !== 'kafkajs'
          ? { groupProtocol: config.groupProtocol }
          : {}),
      },
      topicPrefix: config.prefix,
      lock: config.mode === 'lockfree' ? false : {},
      ...(config.heartbeatMs ? { heartbeat: { intervalMs: config.heartbeatMs } } : {}),
      ...(config.startupTimeoutMs ? { startupTimeoutMs: config.startupTimeoutMs } : {}),
      ...(config.maxGroups ? { maxGroups: config.maxGroups } : {}),
    },
    { dataSource, logger: quiet },
  ).on(config.topic, () => {});
  return {
    groupId: () => engine.reader.groupId,
    heartbeatsSent: () => engine.heartbeat.sent,
    state: () => engine.reader.status().state,
    start: () => engine.start(),
    stop: async () => {
      await engine.stop();
      await dataSource?.destroy();
    },
  };
}

const instances = [];
for (let i = 0; i < config.count; i++)
  instances.push(await prepareInstance(`${config.tag ?? 0}-${i}`));
// R imported @platformatic/kafka above (raw-platformatic.mjs); ours only began importing it in the
// background at .on() (0.3–0.5 s of it still running here, measured): wait for it, so neither
// start's clock holds the client's import (kafkajs is imported at the top for both). The same
// for @confluentinc/kafka-javascript (raw-confluent.mjs; the adapter's import).
if (client === 'platformatic') await import('@platformatic/kafka');
if (client === 'confluent') await import('@confluentinc/kafka-javascript');
say('PREPARED');

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line === 'GO') {
    let prof;
    if (process.env.FLEET_PROF_DIR) {
      const { Session } = await import('node:inspector/promises');
      prof = new Session();
      prof.connect();
      await prof.post('Profiler.enable');
      await prof.post('Profiler.setSamplingInterval', { interval: 200 });
      await prof.post('Profiler.start');
    }
    const cpu0 = cpuMs();
    const requests0 = requests;
    kinds?.clear();
    const readyAt = await Promise.all(instances.map((x) => x.start().then(() => Date.now())));
    if (prof) {
      const { profile } = await prof.post('Profiler.stop');
      (await import('node:fs')).writeFileSync(
        `${process.env.FLEET_PROF_DIR}/${config.mode}-${process.pid}.cpuprofile`,
        JSON.stringify(profile),
      );
    }
    say('READY', {
      readyAt,
      cpuMs: cpuMs() - cpu0,
      requests: requests === null ? null : requests - requests0,
      groups: instances.map((x) => x.groupId()),
      rssKiB: rssKiB(),
      ...(kinds && { kinds: Object.fromEntries(kinds) }),
    });
  } else if (line === 'STATS') {
    say('STATS', {
      requests,
      heartbeatsSent: instances.reduce((s, x) => s + x.heartbeatsSent(), 0),
      senders: instances.map((x) => x.heartbeatsSent()),
      notReady: instances.filter((x) => x.state() !== 'ready').length,
      rssKiB: rssKiB(),
      cpuMs: cpuMs(),
    });
  } else if (line === 'STOP') {
    const cpu0 = cpuMs();
    await Promise.all(instances.map((x) => x.stop().catch(() => undefined)));
    say('STOPPED', { cpuMs: cpuMs() - cpu0, requests });
    process.exit(0);
  }
}
