// 6. Heartbeat traffic of 10 idle instances (heartbeat every 2000 ms), over a 30 s window.
// Measured next to it, at the same time on its own prefix: ONE idle instance, i.e. what "one heartbeat
// per interval for the whole cluster" really comes to with the engine's jitter. The naive reference
// (every instance sending its own) is 10x that.
import {
  newDataSource,
  now,
  ratio,
  round,
  sleep,
  withAdmin,
} from '../lib/common.mjs';
import { createEngine, HEARTBEAT_TOPIC } from '../lib/ours.mjs';

export const id = '6';
export const title = 'Heartbeat messages, 10 idle instances';
const INTERVAL_MS = 2000;

async function highWatermark(admin, topic) {
  const offsets = await admin.fetchTopicOffsets(topic);
  return offsets.reduce((s, p) => s + Number(p.high), 0);
}

async function group(ctx, prefix, n) {
  const dataSources = await Promise.all(
    Array.from({ length: n }, () => newDataSource()),
  );
  const engines = dataSources.map((dataSource, i) =>
    createEngine({
      brokers: ctx.brokers,
      prefix,
      dataSource,
      clientId: `bench-hb-${i}`,
      heartbeat: { intervalMs: INTERVAL_MS },
    }).on('idle', () => {}),
  );
  await Promise.all(engines.map((e) => e.start()));
  return {
    engines,
    sent: () => engines.reduce((s, e) => s + e.heartbeat.sent, 0),
    perInstance: () => engines.map((e) => e.heartbeat.sent),
    stop: async () => {
      await Promise.all(engines.map((e) => e.stop()));
      await Promise.all(dataSources.map((d) => d.destroy()));
    },
  };
}

export async function run(ctx) {
  const base = ctx.prefix(id);
  const n = 10;
  const windowMs = ctx.quick ? 10_000 : 30_000;
  const settleMs = 2 * INTERVAL_MS;
  const many = await group(ctx, `${base}ten-`, n);
  const one = await group(ctx, `${base}one-`, 1);
  try {
    await sleep(settleMs); // the first heartbeats (every instance sends at once when it sees none) are not steady state
    const [hw0many, hw0one] = await withAdmin(ctx.brokers, (a) =>
      Promise.all([
        highWatermark(a, `${base}ten-${HEARTBEAT_TOPIC}`),
        highWatermark(a, `${base}one-${HEARTBEAT_TOPIC}`),
      ]),
    );
    const s0 = {
      many: many.sent(),
      one: one.sent(),
      perInstance: many.perInstance(),
      t: now(),
    };
    await sleep(windowMs);
    const s1 = {
      many: many.sent(),
      one: one.sent(),
      perInstance: many.perInstance(),
      t: now(),
    };
    const [hw1many, hw1one] = await withAdmin(ctx.brokers, (a) =>
      Promise.all([
        highWatermark(a, `${base}ten-${HEARTBEAT_TOPIC}`),
        highWatermark(a, `${base}one-${HEARTBEAT_TOPIC}`),
      ]),
    );
    const elapsed = s1.t - s0.t;
    const perMin = (count) => round((count * 60_000) / elapsed, 1);
    const perInterval = (count) => round((count * INTERVAL_MS) / elapsed, 2);
    const manyCount = s1.many - s0.many;
    const oneCount = s1.one - s0.one;
    const senders = s1.perInstance.map((v, i) => v - s0.perInstance[i]);
    const naivePerMin = (n * 60_000) / INTERVAL_MS;
    const idealPerMin = 60_000 / INTERVAL_MS;
    const row = (metric, value, baseValue, target, pass, note) => ({
      metric,
      unit: 'msg/min',
      ours: { n: 1, min: value, median: value, max: value },
      base: { n: 1, min: baseValue, median: baseValue, max: baseValue },
      ratio: ratio(value, baseValue),
      target,
      pass,
      note,
    });
    return {
      params: {
        instances: n,
        intervalMs: INTERVAL_MS,
        jitter: 0.25,
        windowMs: round(elapsed),
        settleMs,
      },
      rows: [
        row(
          `10 instances vs 1 instance (measured alongside)`,
          perMin(manyCount),
          perMin(oneCount),
          'info (~1)',
          undefined,
          `${perInterval(manyCount)} per interval; per-instance sends in window: ${senders.join(',')}`,
        ),
        row(
          `10 instances vs ideal 1/interval (${idealPerMin}/min)`,
          perMin(manyCount),
          idealPerMin,
          'info',
          undefined,
          'jitter shortens each wait by up to 25%, so one sender alone is ~1.14x ideal',
        ),
        row(
          `10 instances vs every instance its own (${naivePerMin}/min)`,
          perMin(manyCount),
          naivePerMin,
          '<< 1',
          perMin(manyCount) < naivePerMin / 2,
        ),
      ],
      samples: {
        ten: {
          sent: manyCount,
          onTopic: hw1many - hw0many,
          perInstance: senders,
        },
        one: { sent: oneCount, onTopic: hw1one - hw0one },
        elapsedMs: round(elapsed),
      },
    };
  } finally {
    await Promise.all([many.stop(), one.stop()]);
  }
}
