// 8. Cost of tracing and metrics: one lock-free instance with the OpenTelemetry SDK registered
//    (traces through a BatchSpanProcessor into a discarding exporter, every span sampled; metrics
//    read by the Prometheus exporter), with metrics only, and with `instrumentation: false`,
//    rotating the order, same process.
//    backlog: N messages produced while the first handler call is held, then drained: msg/s.
//    fan-out: M publishes through the engine's own publisher, 10 ms apart: producer timestamp →
//             handler, in ms (the publish is traced too when telemetry is on).
import { metrics, trace } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  createTopics,
  engineLogger,
  now,
  ratio,
  rawKafka,
  rawProducer,
  sleep,
  summary,
  waitFor,
} from '../lib/common.mjs';
import { BroadcastEngine, engineTopics } from '../lib/ours.mjs';

export const id = '9';
export const title = 'Telemetry overhead (OpenTelemetry SDK on vs instrumentation off)';
const TOPIC = 'otel';
const BATCH = 1000;

/** Spans are built, batched and handed over, then dropped: the SDK's full cost, no I/O. */
const discardingExporter = {
  export: (_spans, done) => done({ code: 0 }),
  shutdown: async () => undefined,
};

function registerSdk(tracing) {
  const tracerProvider = tracing
    ? new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(discardingExporter)] })
    : undefined;
  if (tracerProvider) trace.setGlobalTracerProvider(tracerProvider);
  const prometheus = new PrometheusExporter({ preventServerStart: true });
  const meterProvider = new MeterProvider({ readers: [prometheus] });
  metrics.setGlobalMeterProvider(meterProvider);
  return async () => {
    // One collection, as a scrape would do, so the observable callbacks run too.
    await prometheus.collect();
    await Promise.all([tracerProvider?.shutdown(), meterProvider.shutdown()]);
    trace.disable();
    metrics.disable();
  };
}

async function startEngine(ctx, prefix, telemetry, onMessage) {
  const engine = new BroadcastEngine(
    {
      kafka: { brokers: ctx.brokers, clientId: `bench-otel-${telemetry ? 'on' : 'off'}` },
      topicPrefix: prefix,
      lock: false,
      // Holds the first message while the backlog is produced; below the 10 s session timeout.
      handlerTimeoutMs: 9_000,
    },
    { logger: engineLogger, ...(telemetry ? {} : { instrumentation: false }) },
  );
  engine.on(TOPIC, onMessage);
  await engine.start();
  return engine;
}

async function backlog(ctx, prefix, telemetry, total) {
  let release;
  const gate = new Promise((r) => (release = r));
  const state = { count: 0, first: undefined, last: undefined };
  const engine = await startEngine(ctx, prefix, telemetry, () => {
    state.count++;
    state.last = now();
    if (state.first === undefined) {
      state.first = state.last;
      return gate;
    }
    return undefined;
  });
  const producer = rawProducer(rawKafka(ctx.brokers, 'bench-otel-producer'));
  await producer.connect();
  try {
    for (let b = 0; b < total / BATCH; b++) {
      const messages = Array.from({ length: BATCH }, (_, j) => ({
        value: `{"i":${b * BATCH + j}}`,
      }));
      await producer.send({ topic: prefix + TOPIC, acks: 1, messages });
    }
    await waitFor(() => state.first !== undefined, 10_000, 5);
    const cpu0 = process.cpuUsage();
    const releasedAt = now();
    release();
    const complete = await waitFor(() => state.count >= total, 120_000, 2);
    const cpu = process.cpuUsage(cpu0);
    return {
      complete,
      rate: Math.round(((state.count - 1) / (state.last - releasedAt)) * 1000),
      // Process CPU per message while draining: robust to other load on a shared box.
      cpuUsPerMsg: (cpu.user + cpu.system) / (state.count - 1),
    };
  } finally {
    await producer.disconnect().catch(() => undefined);
    await engine.stop();
  }
}

async function fanOut(ctx, prefix, telemetry, count) {
  const latencies = [];
  const engine = await startEngine(ctx, prefix, telemetry, (_payload, message) => {
    latencies.push(Date.now() - message.timestamp);
  });
  try {
    for (let i = 0; i < count; i++) {
      await engine.publisher.publish(TOPIC, { i });
      await sleep(10);
    }
    await waitFor(() => latencies.length >= count, 30_000, 5);
    return latencies;
  } finally {
    await engine.stop();
  }
}

export async function run(ctx) {
  const prefix = ctx.prefix(id);
  const total = ctx.quick ? 10_000 : 50_000;
  const publishes = ctx.quick ? 100 : 300;
  const runs = ctx.quick ? 1 : 3;
  await createTopics(ctx.brokers, engineTopics(prefix, TOPIC));
  const sides = ['off', 'metrics', 'on'];
  const rates = { on: [], metrics: [], off: [] };
  const cpu = { on: [], metrics: [], off: [] };
  const latencies = { on: [], metrics: [], off: [] };
  for (let i = 0; i < runs; i++) {
    for (const side of [...sides.slice(i % 3), ...sides.slice(0, i % 3)]) {
      const unregister = side === 'off' ? undefined : registerSdk(side === 'on');
      try {
        const drained = await backlog(ctx, prefix, side !== 'off', total);
        rates[side].push(drained.rate);
        cpu[side].push(drained.cpuUsPerMsg);
        latencies[side].push(...(await fanOut(ctx, prefix, side !== 'off', publishes)));
      } finally {
        await unregister?.();
      }
      await sleep(300);
    }
  }
  const on = summary(rates.on);
  const off = summary(rates.off);
  const metricsOnly = summary(rates.metrics);
  const [cpuOn, cpuMetrics, cpuOff] = [summary(cpu.on), summary(cpu.metrics), summary(cpu.off)];
  const lon = summary(latencies.on);
  const loff = summary(latencies.off);
  return {
    params: { messages: total, publishes, runs, lock: 'none', payload: '{"i":12345}' },
    rows: [
      {
        metric: 'backlog msg/s: telemetry on vs off',
        unit: 'msg/s',
        ours: on,
        base: off,
        ratio: ratio(on.median, off.median),
        target: '>= 0.9',
        pass: ratio(on.median, off.median) >= 0.9,
      },
      {
        metric: '  backlog msg/s: metrics only vs off',
        unit: 'msg/s',
        ours: metricsOnly,
        base: off,
        ratio: ratio(metricsOnly.median, off.median),
        sub: true,
      },
      {
        metric: 'backlog CPU us/msg: telemetry on vs off',
        unit: 'us',
        ours: cpuOn,
        base: cpuOff,
        ratio: ratio(cpuOn.median, cpuOff.median),
        note: 'process CPU (user+sys) while draining / messages; the throughput a CPU-bound instance loses is 1 - 1/ratio',
      },
      {
        metric: '  backlog CPU us/msg: metrics only vs off',
        unit: 'us',
        ours: cpuMetrics,
        base: cpuOff,
        ratio: ratio(cpuMetrics.median, cpuOff.median),
        sub: true,
      },
      {
        metric: 'fan-out latency ms: telemetry on vs off',
        unit: 'ms',
        ours: lon,
        base: loff,
        ratio: ratio(lon.median, loff.median),
        note: 'producer timestamp → handler start, publish 10 ms apart',
      },
    ],
    samples: { rates, cpu, latencies },
  };
}
