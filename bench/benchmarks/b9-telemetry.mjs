// 9. Cost of tracing and metrics: one lock-free instance with the OpenTelemetry SDK registered
//    as an application would (AsyncLocalStorage context manager, made active as an app's HTTP
//    instrumentation makes it on its first request; W3C trace context and baggage propagators;
//    traces through a BatchSpanProcessor into a discarding exporter; metrics read by the
//    Prometheus exporter): metrics only, traces sampled 1 in 100 (ParentBased(TraceIdRatio 0.01),
//    the usual production setting) plus metrics, every span sampled plus metrics, and
//    `instrumentation: false`; rotating the order, same process.
//    Control sides tell the SDK's share from the library's, all with the SDK tracing 1 in 100:
//    *app traced* (the application traces its own work, the library's instrumentation off),
//    *library metrics only* (`telemetry: { traces: false }`) and *bare spans* (instrumentation
//    off, the handler wrapped in the least a per-call CONSUMER span through the SDK takes:
//    extract, start, make active, end; and each publish in a bare PRODUCER span whose context the
//    propagators write into the headers; see otel-sdk.mjs).
//    backlog (consumer-bound): N messages produced while the first handler call is held, then
//             drained: msg/s and CPU per message; the worst case, a handler that does nothing.
//    publish to 3 engines (publisher-bound): broadcasts through the engine's own publisher to
//             three engines, as an application fans out; msg/s and CPU per broadcast.
//    fan-out: M publishes through the engine's own publisher, 10 ms apart: producer timestamp →
//             handler, in ms (the publish is traced too when telemetry is on).
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
import { minimalPublishSpans, minimalSpans, registerSdk } from '../lib/otel-sdk.mjs';
import { BroadcastEngine, engineTopics } from '../lib/ours.mjs';

export const id = '9';
export const title = 'Telemetry overhead (OpenTelemetry SDK on vs instrumentation off)';
const TOPIC = 'otel';
const BATCH = 1000;
/** Backlog drains per round of the publish-bound parts. */
const BACKLOG_EVERY = 3;

/** Starts one engine for `side`; the handler is wrapped in bare spans on that control side. */
async function startEngine(ctx, prefix, side, onMessage) {
  const telemetry = side.instrumentation !== false;
  const engine = new BroadcastEngine(
    {
      kafka: { brokers: ctx.brokers, clientId: `bench-otel-${side.key}` },
      topicPrefix: prefix,
      lock: false,
      // Holds the first message while the backlog is produced; below the 10 s session timeout.
      handlerTimeoutMs: 9_000,
      ...(side.telemetry && { telemetry: side.telemetry }),
    },
    { logger: engineLogger, ...(telemetry ? {} : { instrumentation: false }) },
  );
  engine.on(
    TOPIC,
    side.bareSpans ? minimalSpans(`process ${prefix}${TOPIC}`, onMessage) : onMessage,
  );
  await engine.start();
  return engine;
}

async function backlog(ctx, prefix, side, total) {
  let release;
  const gate = new Promise((r) => (release = r));
  const state = { count: 0, first: undefined, last: undefined };
  const engine = await startEngine(ctx, prefix, side, () => {
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

async function fanOut(ctx, prefix, side, count) {
  const latencies = [];
  const engine = await startEngine(ctx, prefix, side, (_payload, message) => {
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

/**
 * The sides measured, in the rotation's order; `sdk` is what registerSdk is given (none: no
 * SDK), `instrumentation: false` turns the library's off, `bareSpans` wraps the handler.
 */
const SIDES = [
  { key: 'off', label: 'instrumentation off', instrumentation: false },
  { key: 'metrics', label: 'metrics only', sdk: false },
  { key: 'ratio', label: 'metrics + traces sampled 1 in 100', sdk: 'ratio' },
  { key: 'on', label: 'metrics + every span sampled', sdk: 'all' },
  { key: 'app', label: 'app traced 1 in 100, library off', sdk: 'ratio', instrumentation: false },
  {
    key: 'appMetrics',
    label: 'app traced 1 in 100, library metrics only (telemetry.traces: false)',
    sdk: 'ratio',
    telemetry: { traces: false },
  },
  {
    key: 'bare',
    label: 'app traced 1 in 100, library off, handler in bare spans',
    sdk: 'ratio',
    instrumentation: false,
    bareSpans: true,
  },
];
/** The library's sides, each measured against `off` with the 10 % target. */
const LIBRARY_SIDES = SIDES.filter((side) => ['metrics', 'ratio', 'on'].includes(side.key));
/** What the controls compare: [side, against, what the ratio shows]. */
const CONTROLS = [
  ['app', 'off', "the SDK's context manager and propagators alone, nothing traced per message"],
  ['bare', 'app', 'the least a per-call span through the SDK costs (the floor for any library)'],
  ['ratio', 'app', "the library's traces and metrics in an app that already traces"],
  ['appMetrics', 'app', "the library's metrics in an app that traces, the library's traces off"],
  ['ratio', 'bare', "the library's traces and metrics against the floor"],
];

/**
 * Publish-bound fan-out: one engine publishes `total` broadcasts through its own publisher,
 * `concurrency` at a time, to three engines (the publisher's included) in this process;
 * msg/s until the slowest has them all, and process CPU per published broadcast.
 */
async function endToEnd(ctx, prefix, side, total, concurrency = 200) {
  const counts = [0, 0, 0];
  const engines = [];
  try {
    for (let i = 0; i < counts.length; i++)
      engines.push(await startEngine(ctx, prefix, side, () => void counts[i]++));
    const traced = side.bareSpans ? minimalPublishSpans(`publish ${prefix}${TOPIC}`) : undefined;
    const cpu0 = process.cpuUsage();
    const startedAt = now();
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < total) {
          const payload = { i: next++ };
          const publish = (headers) => engines[0].publisher.publish(TOPIC, payload, { headers });
          await (traced ? traced(publish) : publish());
        }
      }),
    );
    const complete = await waitFor(() => counts.every((c) => c >= total), 60_000, 2);
    const cpu = process.cpuUsage(cpu0);
    return {
      complete,
      rate: Math.round((total / (now() - startedAt)) * 1000),
      cpuUsPerMsg: (cpu.user + cpu.system) / total,
    };
  } finally {
    await Promise.all(engines.map((engine) => engine.stop()));
  }
}

export async function run(ctx) {
  const prefix = ctx.prefix(id);
  const total = ctx.quick ? 10_000 : 50_000;
  const publishes = ctx.quick ? 100 : 300;
  const runs = ctx.quick ? 1 : 5;
  await createTopics(ctx.brokers, engineTopics(prefix, TOPIC));
  // One drain not counted: the first one in a process pays for JIT warm-up, whichever side it is.
  await backlog(ctx, prefix, SIDES[0], total);
  const empty = () => Object.fromEntries(SIDES.map((side) => [side.key, []]));
  const [rates, cpu, latencies, e2eRates, e2eCpu] = [empty(), empty(), empty(), empty(), empty()];
  const e2eTotal = ctx.quick ? 2_000 : 10_000;
  // The backlog drain is short and its rounds vary most (±10 % between rounds of one side), so
  // it runs BACKLOG_EVERY times as often as the publish-bound parts.
  for (let i = 0; i < runs * BACKLOG_EVERY; i++) {
    const order = [...SIDES.slice(i % SIDES.length), ...SIDES.slice(0, i % SIDES.length)];
    for (const side of order) {
      const unregister = 'sdk' in side ? registerSdk(side.sdk) : undefined;
      try {
        const drained = await backlog(ctx, prefix, side, total);
        rates[side.key].push(drained.rate);
        cpu[side.key].push(drained.cpuUsPerMsg);
        if (i % BACKLOG_EVERY === 0) {
          latencies[side.key].push(...(await fanOut(ctx, prefix, side, publishes)));
          const e2e = await endToEnd(ctx, prefix, side, e2eTotal);
          e2eRates[side.key].push(e2e.rate);
          e2eCpu[side.key].push(e2e.cpuUsPerMsg);
        }
      } finally {
        await unregister?.();
      }
      await sleep(300);
    }
  }
  const off = { rate: summary(rates.off), cpu: summary(cpu.off), latency: summary(latencies.off) };
  const rows = [];
  for (const side of LIBRARY_SIDES) {
    const rate = summary(rates[side.key]);
    const r = ratio(rate.median, off.rate.median);
    rows.push({
      metric: `backlog msg/s: ${side.label} vs off`,
      unit: 'msg/s',
      ours: rate,
      base: off.rate,
      ratio: r,
      target: '>= 0.9',
      pass: r >= 0.9,
    });
  }
  for (const side of LIBRARY_SIDES) {
    const used = summary(cpu[side.key]);
    rows.push({
      metric: `backlog CPU us/msg: ${side.label} vs off`,
      unit: 'us',
      ours: used,
      base: off.cpu,
      ratio: ratio(used.median, off.cpu.median),
      ...(side.key === 'metrics' && {
        note: 'process CPU (user+sys) while draining / messages; the throughput a CPU-bound instance loses is 1 - 1/ratio',
      }),
    });
  }
  const e2eOff = { rate: summary(e2eRates.off), cpu: summary(e2eCpu.off) };
  for (const side of LIBRARY_SIDES) {
    const rate = summary(e2eRates[side.key]);
    const r = ratio(rate.median, e2eOff.rate.median);
    rows.push({
      metric: `publish to 3 engines msg/s: ${side.label} vs off`,
      unit: 'msg/s',
      ours: rate,
      base: e2eOff.rate,
      ratio: r,
      target: '>= 0.9',
      pass: r >= 0.9,
      ...(side.key === 'metrics' && {
        note: `${e2eTotal} broadcasts through engine.publisher.publish, 200 at a time, to 3 engines in one process (publisher-bound: what a real fan-out is limited by)`,
      }),
    });
  }
  for (const side of LIBRARY_SIDES) {
    const used = summary(e2eCpu[side.key]);
    rows.push({
      metric: `publish to 3 engines CPU us/msg: ${side.label} vs off`,
      unit: 'us',
      ours: used,
      base: e2eOff.cpu,
      ratio: ratio(used.median, e2eOff.cpu.median),
      sub: true,
    });
  }
  for (const side of LIBRARY_SIDES) {
    const latency = summary(latencies[side.key]);
    rows.push({
      metric: `fan-out latency ms: ${side.label} vs off`,
      unit: 'ms',
      ours: latency,
      base: off.latency,
      ratio: ratio(latency.median, off.latency.median),
      ...(side.key === 'metrics' && {
        note: 'producer timestamp → handler start, publish 10 ms apart',
      }),
    });
  }
  const label = (key) => SIDES.find((side) => side.key === key).label;
  for (const [key, against, shows] of CONTROLS) {
    for (const [name, values, unit] of [
      ['backlog msg/s', rates, 'msg/s'],
      ['backlog CPU us/msg', cpu, 'us'],
      ['publish to 3 engines msg/s', e2eRates, 'msg/s'],
    ]) {
      const ours = summary(values[key]);
      const base = summary(values[against]);
      rows.push({
        metric: `control, ${name}: ${label(key)} vs ${label(against)}`,
        unit,
        ours,
        base,
        ratio: ratio(ours.median, base.median),
        sub: true,
        ...(name === 'backlog msg/s' && { note: shows }),
      });
    }
  }
  return {
    params: {
      messages: total,
      publishes,
      runs,
      backlogRuns: runs * BACKLOG_EVERY,
      warmUp: 'one drain before the runs, not counted',
      lock: 'none',
      payload: '{"i":12345}',
      handler: 'no-op',
      endToEnd: { broadcasts: e2eTotal, concurrency: 200, engines: 3 },
      sdk: 'ALS context manager made active, W3C trace context + baggage propagators, BatchSpanProcessor into a discarding exporter, Prometheus exporter',
    },
    rows,
    samples: { rates, cpu, latencies, e2eRates, e2eCpu },
  };
}
