// 3. Fan-out latency publish -> handler, 10 instances in ONE process (one clock), fixed publish rate.
import {
  createTopics,
  histogram,
  newDataSource,
  now,
  percentile,
  ratio,
  rawKafka,
  rawProducer,
  round,
  sleep,
  sorted,
  startRawConsumer,
  summary,
  waitFor,
} from '../lib/common.mjs';
import { createEngine, engineTopics } from '../lib/ours.mjs';

export const id = '3';
export const title = 'Fan-out latency publish -> handler';
const TOPIC = 'fanout';

/**
 * Sends `count` messages at `rate`/s on a fixed schedule (not waiting for acks, so a slow ack never
 * delays the next send). The payload carries performance.now() at send time.
 */
async function publishAtRate(send, count, rate, seqBase) {
  const period = 1000 / rate;
  const t0 = now();
  const pending = [];
  for (let i = 0; i < count; i++) {
    const due = t0 + i * period;
    const wait = due - now();
    if (wait > 1) await sleep(wait);
    pending.push(send({ s: seqBase + i, t: now() }));
  }
  await Promise.all(pending);
  return now() - t0;
}

function collector(instances, count) {
  const lat = Array.from({ length: instances }, () =>
    new Float64Array(count).fill(NaN),
  );
  let got = 0;
  let dup = 0;
  const record = (i, payload) => {
    const at = now();
    if (payload.s < 0) return; // warm-up
    if (!Number.isNaN(lat[i][payload.s])) return void dup++;
    lat[i][payload.s] = at - payload.t;
    got++;
  };
  return { lat, record, got: () => got, dup: () => dup };
}

async function warmUp(send, received, instances) {
  // Connects the producer and proves every instance reads, before the measured messages.
  for (let i = 0; i < 20; i++) {
    await send({ s: -1, t: now() });
    await sleep(20);
  }
  await waitFor(() => received() >= 20 * instances, 15_000);
}

async function oursRun(ctx, prefix, n, count, rate) {
  const dataSources = await Promise.all(
    Array.from({ length: n }, () => newDataSource()),
  );
  const c = collector(n, count);
  let warm = 0;
  const engines = dataSources.map((dataSource, i) =>
    createEngine({
      brokers: ctx.brokers,
      prefix,
      dataSource,
      clientId: `bench-ours-${i}`,
    }).on(TOPIC, (payload) => {
      if (payload.s < 0) warm++;
      c.record(i, payload);
    }),
  );
  try {
    await Promise.all(engines.map((e) => e.start()));
    const send = (payload) => engines[0].publisher.publish(TOPIC, payload);
    await warmUp(send, () => warm, n);
    const sendMs = await publishAtRate(send, count, rate, 0);
    await waitFor(() => c.got() >= n * count, 15_000);
    return { ...finish(c, n, count), sendMs };
  } finally {
    await Promise.all(engines.map((e) => e.stop()));
    await Promise.all(dataSources.map((d) => d.destroy()));
  }
}

async function rawRun(ctx, prefix, n, count, rate) {
  const c = collector(n, count);
  let warm = 0;
  const consumers = Array.from({ length: n }, (_, i) =>
    startRawConsumer({
      brokers: ctx.brokers,
      prefix,
      clientId: `bench-raw-${i}`,
      topics: engineTopics(prefix, TOPIC),
      onMessage: (topic, _partition, message) => {
        if (topic !== prefix + TOPIC) return;
        const payload = JSON.parse(message.value.toString('utf8'));
        if (payload.s < 0) warm++;
        c.record(i, payload);
      },
    }),
  );
  // Same producer settings as the engine's publisher: acks all, default partitioner.
  const kafka = rawKafka(ctx.brokers, 'bench-raw-producer');
  const producer = rawProducer(kafka);
  try {
    await Promise.all([producer.connect(), ...consumers.map((x) => x.ready)]);
    const send = (payload) =>
      producer.send({
        topic: prefix + TOPIC,
        acks: -1,
        messages: [{ key: null, value: JSON.stringify(payload) }],
      });
    await warmUp(send, () => warm, n);
    const sendMs = await publishAtRate(send, count, rate, 0);
    await waitFor(() => c.got() >= n * count, 15_000);
    return { ...finish(c, n, count), sendMs };
  } finally {
    await producer.disconnect().catch(() => undefined);
    await Promise.all(consumers.map((x) => x.stop()));
  }
}

/**
 * Both sides at once, reading the SAME messages (published by ours): every moment of load on the box
 * hits both alike. 20 consumers in the process instead of 10, so absolute figures are higher.
 */
async function pairedRun(ctx, prefix, n, count, rate) {
  const dataSources = await Promise.all(
    Array.from({ length: n }, () => newDataSource()),
  );
  const co = collector(n, count);
  const cr = collector(n, count);
  let warm = 0;
  const engines = dataSources.map((dataSource, i) =>
    createEngine({
      brokers: ctx.brokers,
      prefix,
      dataSource,
      clientId: `bench-ours-${i}`,
    }).on(TOPIC, (payload) => {
      if (payload.s < 0) warm++;
      co.record(i, payload);
    }),
  );
  const consumers = Array.from({ length: n }, (_, i) =>
    startRawConsumer({
      brokers: ctx.brokers,
      prefix,
      clientId: `bench-raw-${i}`,
      topics: engineTopics(prefix, TOPIC),
      onMessage: (topic, _partition, message) => {
        if (topic !== prefix + TOPIC) return;
        const payload = JSON.parse(message.value.toString('utf8'));
        if (payload.s < 0) warm++;
        cr.record(i, payload);
      },
    }),
  );
  try {
    await Promise.all([
      ...engines.map((e) => e.start()),
      ...consumers.map((x) => x.ready),
    ]);
    const send = (payload) => engines[0].publisher.publish(TOPIC, payload);
    await warmUp(send, () => warm, 2 * n);
    const sendMs = await publishAtRate(send, count, rate, 0);
    await waitFor(() => co.got() >= n * count && cr.got() >= n * count, 15_000);
    return {
      ours: { ...finish(co, n, count), sendMs },
      raw: { ...finish(cr, n, count), sendMs },
    };
  } finally {
    await Promise.all([
      ...engines.map((e) => e.stop()),
      ...consumers.map((x) => x.stop()),
    ]);
    await Promise.all(dataSources.map((d) => d.destroy()));
  }
}

function finish(c, n, count) {
  const all = [];
  for (const arr of c.lat)
    for (const v of arr) if (!Number.isNaN(v)) all.push(v);
  const asc = sorted(all);
  return {
    received: all.length,
    expected: n * count,
    duplicates: c.dup(),
    p50: round(percentile(asc, 50), 3),
    p95: round(percentile(asc, 95), 3),
    p99: round(percentile(asc, 99), 3),
    max: round(asc[asc.length - 1], 3),
    histogram01ms: histogram(asc, 0.1),
  };
}

export async function run(ctx) {
  const prefix = ctx.prefix(id);
  const n = 10;
  const count = ctx.quick ? 400 : 2000;
  const rate = 200;
  const runs = ctx.quick ? 1 : 3;
  await createTopics(ctx.brokers, engineTopics(prefix, TOPIC));
  const ours = [];
  const raw = [];
  for (let i = 0; i < runs; i++) {
    const order = i % 2 === 0 ? ['ours', 'raw'] : ['raw', 'ours'];
    for (const side of order) {
      const r =
        side === 'ours'
          ? await oursRun(ctx, prefix, n, count, rate)
          : await rawRun(ctx, prefix, n, count, rate);
      (side === 'ours' ? ours : raw).push(r);
      await sleep(500);
    }
  }
  const rows = ['p50', 'p95', 'p99'].map((p) => {
    const o = summary(ours.map((r) => r[p]));
    const b = summary(raw.map((r) => r[p]));
    return {
      metric: `latency ${p} (${n} instances x ${count} msgs)`,
      unit: 'ms',
      ours: o,
      base: b,
      ratio: ratio(o.median, b.median),
      target: p === 'p99' ? '<= 1.1' : 'info',
      pass: p === 'p99' ? ratio(o.median, b.median) <= 1.1 : undefined,
    };
  });
  const paired = [];
  for (let i = 0; i < (ctx.quick ? 1 : 2); i++) {
    paired.push(await pairedRun(ctx, prefix, n, count, rate));
    await sleep(500);
  }
  for (const p of ['p50', 'p99']) {
    const o = summary(paired.map((r) => r.ours[p]));
    const b = summary(paired.map((r) => r.raw[p]));
    rows.push({
      metric: `  paired (both sides at once, same msgs) ${p}`,
      unit: 'ms',
      ours: o,
      base: b,
      ratio: ratio(o.median, b.median),
      sub: true,
      note:
        p === 'p50'
          ? '10 engines + 10 raw consumers in one process reading the same stream: load hits both alike'
          : undefined,
    });
  }
  const lost = ours.reduce((s, r) => s + r.expected - r.received, 0);
  const lostRaw = raw.reduce((s, r) => s + r.expected - r.received, 0);
  rows.push({
    metric: 'deliveries missing (message x instance)',
    unit: 'count',
    ours: summary(ours.map((r) => r.expected - r.received)),
    base: summary(raw.map((r) => r.expected - r.received)),
    target: '0',
    pass: lost === 0 && lostRaw === 0,
  });
  return {
    params: {
      instances: n,
      messagesPerRun: count,
      ratePerSec: rate,
      runs,
      publisher: 'acks=all both sides',
      process: 'all instances in one process',
    },
    rows,
    samples: { ours, raw, paired },
  };
}
