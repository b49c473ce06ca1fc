// 4. Dispatch throughput, one instance, 100k small messages: our engine on each adapter, R on each
// raw client (and R on kafkajs with eachBatch in the backlog variant).
//   live:    consumer ready, then 100k produced as fast as possible (batches of 1000, acks 1) while it reads;
//            rate = messages / (last received - first received). This is the brief's method; it can be
//            bounded by the producer, so the produce time is reported next to it.
//   backlog: the same, but the handler holds the first message until all 100k are in the log, so the
//            rate (from release to last) is the pure consume + dispatch rate from a backlog.
import {
  createTopics,
  newDataSource,
  now,
  ratio,
  rawKafka,
  rawProducer,
  round,
  sleep,
  startRawConsumer,
  summary,
  waitFor,
} from '../lib/common.mjs';
import { createEngine, engineTopics } from '../lib/ours.mjs';
import { SIDES, fourSideRows, perSide, rotation, startRaw as startRawOn } from '../lib/sides.mjs';

export const id = '4';
export const title = 'Dispatch throughput, one instance';
export const TOPIC = 'throughput';
const BATCH = 1000;

function buildBatches(total, tag) {
  const batches = [];
  for (let b = 0; b < total / BATCH; b++) {
    batches.push(
      Array.from({ length: BATCH }, (_, j) => ({
        value: `{"r":"${tag}","i":${b * BATCH + j}}`,
      })),
    );
  }
  return batches;
}

const IN_FLIGHT = 4;

/** Sends every batch with up to IN_FLIGHT sends outstanding (order does not matter here). */
async function produceAll(producer, topic, batches) {
  const t0 = now();
  let next = 0;
  const worker = async () => {
    while (next < batches.length)
      await producer.send({ topic, acks: 1, messages: batches[next++] });
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return now() - t0;
}

/** What a handler does per message on both sides: note the arrival; the first one may be held. */
function counter(total, gate) {
  const state = {
    count: 0,
    first: undefined,
    last: undefined,
    released: undefined,
  };
  const onMessage = () => {
    const t = now();
    state.count++;
    state.last = t;
    if (state.first === undefined) {
      state.first = t;
      if (gate) return gate.promise;
    }
    return undefined;
  };
  const done = () => state.count >= total;
  return { state, onMessage, done };
}

function makeGate() {
  let open;
  const promise = new Promise((r) => (open = r));
  return { promise, open };
}

/**
 * One run of one side. `hooks.released` / `hooks.drained` (optional, awaited) bracket the backlog
 * drain: bench/ab-backlog.mjs profiles that window alone.
 */
export async function measure({ ctx, prefix, total, variant, startConsumer, hooks = {} }) {
  const kafka = rawKafka(ctx.brokers, 'bench-producer');
  const producer = rawProducer(kafka);
  await producer.connect();
  const gate = variant === 'backlog' ? makeGate() : undefined;
  const c = counter(total, gate);
  const consumer = await startConsumer(c.onMessage);
  try {
    const batches = buildBatches(total, variant);
    const produceMs = await produceAll(producer, prefix + TOPIC, batches);
    let releasedAt;
    let cpu0;
    if (gate) {
      await waitFor(() => c.state.first !== undefined, 10_000, 5);
      await hooks.released?.();
      cpu0 = process.cpuUsage();
      releasedAt = now();
      gate.open();
    }
    const complete = await waitFor(c.done, 120_000, 2);
    const cpu = cpu0 && process.cpuUsage(cpu0);
    await hooks.drained?.();
    const from = releasedAt ?? c.state.first;
    const span = c.state.last - from;
    return {
      received: c.state.count,
      complete,
      produceMs: round(produceMs),
      produceRate: Math.round((total / produceMs) * 1000),
      spanMs: round(span),
      rate: Math.round(((c.state.count - 1) / span) * 1000),
      // CPU of this whole process per message while draining the backlog: robust to other load on the box.
      cpuUsPerMsg: cpu ? round((cpu.user + cpu.system) / (c.state.count - 1), 3) : undefined,
    };
  } finally {
    await consumer.stop();
    await producer.disconnect().catch(() => undefined);
  }
}

async function startOurs(ctx, prefix, onMessage, client) {
  const dataSource = await newDataSource();
  const engine = createEngine({
    brokers: ctx.brokers,
    prefix,
    dataSource,
    client,
    // Holds the first message while the backlog is produced; must stay below the session timeout.
    handlerTimeoutMs: 9_000,
  });
  engine.on(TOPIC, (payload) => onMessage(payload));
  await engine.start();
  return {
    stop: async () => {
      await engine.stop();
      await dataSource.destroy();
    },
  };
}

/** R per the brief: one message at a time (kafkajs eachMessage; the stream's async iterator). */
async function startRaw(ctx, prefix, onMessage, client) {
  const topic = prefix + TOPIC;
  const raw = startRawOn(client, {
    brokers: ctx.brokers,
    prefix,
    topics: engineTopics(prefix, TOPIC),
    onMessage: (t, _p, message) => {
      if (t !== topic) return undefined;
      return onMessage(JSON.parse(message.value.toString('utf8')));
    },
  });
  await raw.ready;
  return raw;
}

/** R with eachBatch instead of eachMessage (what the engine uses internally): the baseline's best case. */
async function startRawBatch(ctx, prefix, onMessage) {
  const topic = prefix + TOPIC;
  const raw = startRawConsumer({
    brokers: ctx.brokers,
    prefix,
    topics: engineTopics(prefix, TOPIC),
    eachBatch: async ({ batch, resolveOffset, heartbeat }) => {
      for (const message of batch.messages) {
        if (batch.topic === topic) {
          const pending = onMessage(JSON.parse(message.value.toString('utf8')));
          if (pending) await pending;
        }
        resolveOffset(message.offset);
      }
      await heartbeat();
    },
  });
  await raw.ready;
  return raw;
}

/** The four sides, and R on kafkajs with eachBatch in the backlog variant only. */
const RAW_BATCH = { key: 'R-kafkajs-eachBatch', ours: false, client: 'kafkajs', batch: true };

export async function run(ctx) {
  const prefix = ctx.prefix(id);
  const total = ctx.quick ? 20_000 : 100_000;
  const runs = ctx.quick ? 1 : 5;
  await createTopics(ctx.brokers, engineTopics(prefix, TOPIC));
  const results = {
    live: perSide(),
    backlog: { ...perSide(), [RAW_BATCH.key]: [] },
  };
  const starter = (side) => (side.batch ? startRawBatch : side.ours ? startOurs : startRaw);
  for (let i = 0; i < runs; i++) {
    for (const variant of ['live', 'backlog']) {
      // Rotating over the rounds; the eachBatch extra last in the backlog variant.
      const order = rotation(i);
      if (variant === 'backlog') order.push(RAW_BATCH);
      for (const side of order) {
        const startConsumer = (onMessage) => starter(side)(ctx, prefix, onMessage, side.client);
        results[variant][side.key].push(
          await measure({ ctx, prefix, total, variant, startConsumer }),
        );
        await sleep(300);
      }
    }
  }
  const by = (variant, field) =>
    Object.fromEntries(
      Object.keys(results[variant]).map((key) => [
        key,
        summary(results[variant][key].map((r) => r[field])),
      ]),
    );
  const rows = [
    ...fourSideRows({
      metric: 'live (produce while reading) msg/s',
      unit: 'msg/s',
      by: by('live', 'rate'),
      target: '>= 0.9',
      pass: (r) => r >= 0.9,
    }),
    ...fourSideRows({
      metric: 'backlog (first handler held) msg/s',
      unit: 'msg/s',
      by: by('backlog', 'rate'),
      target: 'info (>= 0.9)',
    }),
  ];
  {
    const rates = by('backlog', 'rate');
    rows.push({
      metric: '  backlog msg/s: ours-kafkajs vs R-kafkajs with eachBatch',
      unit: 'msg/s',
      ours: rates['ours-kafkajs'],
      base: rates[RAW_BATCH.key],
      ratio: ratio(rates['ours-kafkajs'].median, rates[RAW_BATCH.key].median),
      sides: ['ours-kafkajs', RAW_BATCH.key],
      sub: true,
      note: 'the kafkajs adapter reads with eachBatch; R per the brief uses eachMessage',
    });
  }
  const cpu = by('backlog', 'cpuUsPerMsg');
  rows.push(
    ...fourSideRows({
      metric: 'backlog CPU us/msg',
      unit: 'us',
      by: cpu,
      note: 'process CPU (user+sys) while draining / messages; lower is better; insensitive to other load',
      sub: true,
    }),
    {
      metric: '  backlog CPU us/msg: ours-kafkajs vs R-kafkajs with eachBatch',
      unit: 'us',
      ours: cpu['ours-kafkajs'],
      base: cpu[RAW_BATCH.key],
      ratio: ratio(cpu['ours-kafkajs'].median, cpu[RAW_BATCH.key].median),
      sides: ['ours-kafkajs', RAW_BATCH.key],
      sub: true,
    },
  );
  const allLive = Object.values(results.live).flat();
  const produced = by('live', 'produceRate');
  rows.push({
    metric: '  producer rate during live runs: ours-kafkajs vs R-kafkajs runs',
    unit: 'msg/s',
    ours: produced['ours-kafkajs'],
    base: produced['R-kafkajs'],
    sub: true,
    note:
      `every side: ${SIDES.map((s) => `${s.key} ${produced[s.key].median}`).join(', ')}` +
      (allLive.every((r) => r.complete) ? '' : '; some run did not receive every message'),
  });
  return {
    params: {
      messages: total,
      batch: BATCH,
      acks: 1,
      producerInFlight: IN_FLIGHT,
      producer: 'one raw kafkajs producer for every side (the load, not what is measured)',
      runs,
      order: `the ${SIDES.length} sides rotated by one every run; R-kafkajs with eachBatch last in backlog`,
      payload: '{"r":"live","i":12345} (~24 B)',
    },
    rows,
    summary: {
      live: by('live', 'rate'),
      backlog: by('backlog', 'rate'),
      backlogCpuUsPerMsg: cpu,
    },
    samples: results,
  };
}
