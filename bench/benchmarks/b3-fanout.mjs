// 3. Fan-out latency publish -> handler, 10 instances in ONE process (one clock), fixed publish rate,
// our engine on each adapter and R on each raw client.
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
  summary,
  waitFor,
} from '../lib/common.mjs';
import { createEngine, engineTopics } from '../lib/ours.mjs';
import { rawPlatformaticProducer } from '../lib/raw-platformatic.mjs';
import {
  CLIENTS,
  SIDES,
  fourSideRows,
  perSide,
  rawProducerOf,
  rotation,
  sideKey,
  startRaw,
} from '../lib/sides.mjs';

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
  const lat = Array.from({ length: instances }, () => new Float64Array(count).fill(NaN));
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

async function oursRun(ctx, prefix, n, count, rate, client) {
  const dataSources = await Promise.all(Array.from({ length: n }, () => newDataSource()));
  const c = collector(n, count);
  let warm = 0;
  const engines = dataSources.map((dataSource, i) =>
    createEngine({
      brokers: ctx.brokers,
      prefix,
      dataSource,
      client,
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

/** n raw consumers of `client` whose data-topic messages go to `record(i, payload)`. */
function rawConsumers(ctx, prefix, n, client, record) {
  return Array.from({ length: n }, (_, i) =>
    startRaw(client, {
      brokers: ctx.brokers,
      prefix,
      clientId: `bench-raw-${i}`,
      topics: engineTopics(prefix, TOPIC),
      onMessage: (topic, _partition, message) => {
        if (topic !== prefix + TOPIC) return;
        record(i, JSON.parse(message.value.toString('utf8')));
      },
    }),
  );
}

/** A raw producer of `client` with the engine publisher's settings: acks all, kafkajs's partitioner. */
async function rawSender(ctx, prefix, client) {
  const own = rawProducerOf(client, ctx.brokers);
  if (own)
    return {
      send: (payload) => own.send(prefix + TOPIC, JSON.stringify(payload)),
      close: () => own.close(),
    };
  if (client === 'platformatic') {
    const producer = rawPlatformaticProducer(ctx.brokers);
    return {
      send: (payload) => producer.send(prefix + TOPIC, JSON.stringify(payload)),
      close: () => producer.close(),
    };
  }
  const producer = rawProducer(rawKafka(ctx.brokers, 'bench-raw-producer'));
  await producer.connect();
  return {
    send: (payload) =>
      producer.send({
        topic: prefix + TOPIC,
        acks: -1,
        messages: [{ key: null, value: JSON.stringify(payload) }],
      }),
    close: () => producer.disconnect().catch(() => undefined),
  };
}

async function rawRun(ctx, prefix, n, count, rate, client) {
  const c = collector(n, count);
  let warm = 0;
  const consumers = rawConsumers(ctx, prefix, n, client, (i, payload) => {
    if (payload.s < 0) warm++;
    c.record(i, payload);
  });
  let producer;
  try {
    [producer] = await Promise.all([
      rawSender(ctx, prefix, client),
      ...consumers.map((x) => x.ready),
    ]);
    await warmUp(producer.send, () => warm, n);
    const sendMs = await publishAtRate(producer.send, count, rate, 0);
    await waitFor(() => c.got() >= n * count, 15_000);
    return { ...finish(c, n, count), sendMs };
  } finally {
    await producer?.close();
    await Promise.all(consumers.map((x) => x.stop()));
  }
}

/**
 * Ours and R on one client at once, reading the SAME messages (published by ours): every moment of
 * load on the box hits both alike. 20 consumers in the process instead of 10, so absolute figures
 * are higher.
 */
async function pairedRun(ctx, prefix, n, count, rate, client) {
  const dataSources = await Promise.all(Array.from({ length: n }, () => newDataSource()));
  const co = collector(n, count);
  const cr = collector(n, count);
  let warm = 0;
  const engines = dataSources.map((dataSource, i) =>
    createEngine({
      brokers: ctx.brokers,
      prefix,
      dataSource,
      client,
      clientId: `bench-ours-${i}`,
    }).on(TOPIC, (payload) => {
      if (payload.s < 0) warm++;
      co.record(i, payload);
    }),
  );
  const consumers = rawConsumers(ctx, prefix, n, client, (i, payload) => {
    if (payload.s < 0) warm++;
    cr.record(i, payload);
  });
  try {
    await Promise.all([...engines.map((e) => e.start()), ...consumers.map((x) => x.ready)]);
    const send = (payload) => engines[0].publisher.publish(TOPIC, payload);
    await warmUp(send, () => warm, 2 * n);
    const sendMs = await publishAtRate(send, count, rate, 0);
    await waitFor(() => co.got() >= n * count && cr.got() >= n * count, 15_000);
    return {
      ours: { ...finish(co, n, count), sendMs },
      raw: { ...finish(cr, n, count), sendMs },
    };
  } finally {
    await Promise.all([...engines.map((e) => e.stop()), ...consumers.map((x) => x.stop())]);
    await Promise.all(dataSources.map((d) => d.destroy()));
  }
}

function finish(c, n, count) {
  const all = [];
  for (const arr of c.lat) for (const v of arr) if (!Number.isNaN(v)) all.push(v);
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
  const results = perSide();
  // Rotating the four sides over the runs: with 3 runs each side is first, second or third once.
  for (let i = 0; i < runs; i++) {
    for (const side of rotation(i)) {
      const fn = side.ours ? oursRun : rawRun;
      results[side.key].push(await fn(ctx, prefix, n, count, rate, side.client));
      await sleep(500);
    }
  }
  const rows = [];
  for (const p of ['p50', 'p95', 'p99']) {
    const by = Object.fromEntries(
      SIDES.map((s) => [s.key, summary(results[s.key].map((r) => r[p]))]),
    );
    rows.push(
      ...fourSideRows({
        metric: `latency ${p} (${n} instances x ${count} msgs)`,
        unit: 'ms',
        by,
        target: p === 'p99' ? '<= 1.1' : 'info',
        ...(p === 'p99' && { pass: (r) => r <= 1.1 }),
      }),
    );
  }
  // Paired: ours and R on one client at once, the kafkajs pair and the platformatic pair in turn.
  const paired = Object.fromEntries(CLIENTS.map((c) => [c, []]));
  for (let i = 0; i < (ctx.quick ? 1 : 2); i++) {
    for (const client of i % 2 ? [...CLIENTS].reverse() : CLIENTS) {
      paired[client].push(await pairedRun(ctx, prefix, n, count, rate, client));
      await sleep(500);
    }
  }
  for (const client of CLIENTS) {
    for (const p of ['p50', 'p99']) {
      const o = summary(paired[client].map((r) => r.ours[p]));
      const b = summary(paired[client].map((r) => r.raw[p]));
      rows.push({
        metric: `  paired ${p}, both at once on the same msgs: ours-${client} vs R-${client}`,
        unit: 'ms',
        ours: o,
        base: b,
        ratio: ratio(o.median, b.median),
        sides: [sideKey(true, client), sideKey(false, client)],
        sub: true,
        note:
          p === 'p50'
            ? '10 engines + 10 raw consumers of one client in one process reading the same stream: load hits both alike'
            : undefined,
      });
    }
  }
  const missing = (key) => summary(results[key].map((r) => r.expected - r.received));
  const lost = SIDES.reduce(
    (s, side) => s + results[side.key].reduce((t, r) => t + r.expected - r.received, 0),
    0,
  );
  rows.push({
    metric: 'deliveries missing (message x instance): ours-kafkajs vs R-kafkajs',
    unit: 'count',
    ours: missing('ours-kafkajs'),
    base: missing('R-kafkajs'),
    target: '0 (every side)',
    pass: lost === 0,
    note: `every side: ${SIDES.map((s) => `${s.key} ${results[s.key].reduce((t, r) => t + r.expected - r.received, 0)}`).join(', ')}`,
  });
  const p = (q) =>
    Object.fromEntries(SIDES.map((s) => [s.key, summary(results[s.key].map((r) => r[q]))]));
  return {
    params: {
      instances: n,
      messagesPerRun: count,
      ratePerSec: rate,
      runs,
      order: `the ${SIDES.length} sides rotated by one every run`,
      publisher:
        "acks=all on every side: ours through its engine's publisher (its own client), R through a raw producer of its client",
      process: 'all instances in one process',
    },
    rows,
    summary: { p50: p('p50'), p95: p('p95'), p99: p('p99') },
    samples: { ...results, paired },
  };
}
