// A Nest app whose only work is broadcasts, with no HTTP server: NESTED_APP=context builds it
// with NestFactory.createApplicationContext and an @OnBroadcast handler; NESTED_APP=transport
// runs it as a microservice on this package's BroadcastTransport (connectMicroservice,
// startAllMicroservices, init, never listen) with an @EventPattern handler. Plain JavaScript:
// the decorators are applied by hand. Spawned through Instances (test/support/faults/instances.ts)
// with `runner` set to this file; speaks outage-child.mjs's stdout protocol (loaded, ready,
// state, message, log, stopped) and reads the same config (env BROADCAST_INSTANCE_CONFIG:
// { name, brokers, prefix, topics, nestApp: 'context' | 'transport', kafka? }), lock-free.
//
// SIGTERM closes the app (app.close(), no shutdown hook re-raising the signal): the process
// then ends by itself, with code 0, if nothing is left holding it.
import 'reflect-metadata';
import { Controller, Injectable, Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';

const config = JSON.parse(process.env.BROADCAST_INSTANCE_CONFIG ?? 'null');
const lib = process.env.BROADCAST_LIB || 'nestjs-kafka-broadcast';
const { BroadcastEngine, BroadcastModule, BroadcastReader, OnBroadcast } = await import(lib);
const { BROADCAST_TRANSPORT, BroadcastTransport } = await import(
  new URL('microservices.js', lib).href
);

function emit(event) {
  process.stdout.write(`${JSON.stringify({ ...event, at: Date.now() })}\n`);
}

const logger = {
  log: (message) => emit({ event: 'log', level: 'log', message: String(message) }),
  warn: (message) => emit({ event: 'log', level: 'warn', message: String(message) }),
  error: (message) => emit({ event: 'log', level: 'error', message: String(message) }),
  debug: () => undefined,
  verbose: () => undefined,
  fatal: (message) => emit({ event: 'log', level: 'error', message: String(message) }),
};
Logger.overrideLogger(logger);

const transport = config.nestApp === 'transport';
const topic = config.topics[0];

function received(payload, message) {
  emit({
    event: 'message',
    topic,
    payload,
    partition: message.partition,
    offset: message.offset,
  });
}

/** The handler: an @EventPattern on the transport, an @OnBroadcast otherwise. */
class NewsHandler {
  onNews(payload, second) {
    // @EventPattern handlers get (data, BroadcastContext); @OnBroadcast ones (payload, message).
    received(payload, transport ? second.getMessage() : second);
  }
}
const method = Object.getOwnPropertyDescriptor(NewsHandler.prototype, 'onNews');
if (transport) {
  Payload()(NewsHandler.prototype, 'onNews', 0);
  Ctx()(NewsHandler.prototype, 'onNews', 1);
  EventPattern(topic, BROADCAST_TRANSPORT)(NewsHandler.prototype, 'onNews', method);
  Controller()(NewsHandler);
} else {
  OnBroadcast(topic)(NewsHandler.prototype, 'onNews', method);
  Injectable()(NewsHandler);
}

class AppModule {}
Module({
  imports: [
    BroadcastModule.forRoot({
      kafka: { brokers: config.brokers, clientId: `bcast-${config.name}`, ...config.kafka },
      topicPrefix: config.prefix,
      lock: false,
      instanceId: config.name,
    }),
  ],
  ...(transport
    ? { controllers: [NewsHandler], providers: [BroadcastTransport] }
    : { providers: [NewsHandler] }),
})(AppModule);

emit({ event: 'loaded', pid: process.pid });
const startedAt = Date.now();
let app;
try {
  if (transport) {
    app = await NestFactory.create(AppModule, { logger });
    app.connectMicroservice({ strategy: app.get(BroadcastTransport) });
    await app.startAllMicroservices();
    await app.init();
  } else {
    app = await NestFactory.createApplicationContext(AppModule, { logger });
    await app.init();
  }
} catch (error) {
  emit({ event: 'failed', message: error instanceof Error ? error.message : String(error) });
  process.exitCode = 1;
}

if (app) {
  const reader = app.get(BroadcastReader);
  const { maxStalenessMs } = app.get(BroadcastEngine).options;
  const s = reader.status();
  emit({
    event: 'ready',
    groupId: s.groupId,
    lockId: s.lockId,
    lockMode: s.lockMode,
    startMs: Date.now() - startedAt,
  });
  // Polled, never held: an unref'd timer keeps nothing alive.
  let last;
  setInterval(() => {
    const { state, groupId, lockId, waitingFor, lastLatencyMs } = reader.status();
    const healthy =
      state === 'ready' && lastLatencyMs !== undefined && lastLatencyMs <= maxStalenessMs;
    const key = `${state}|${groupId}|${lockId}|${waitingFor}|${healthy}`;
    if (key === last) return;
    last = key;
    emit({ event: 'state', state, groupId, lockId, waitingFor, healthy });
  }, 25).unref();
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && void close(), 500).unref();
  let closing;
  const close = () =>
    (closing ??= (async () => {
      const began = Date.now();
      await app.close();
      emit({ event: 'stopped', stopMs: Date.now() - began });
    })());
  process.on('SIGTERM', () => void close());
  process.on('SIGINT', () => void close());
}
