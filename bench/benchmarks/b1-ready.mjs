// 1. Time to ready, one instance, cold: engine.start() vs a raw kafkajs consumer with a random group.
import {
  createTopics,
  newDataSource,
  now,
  ratio,
  round,
  sleep,
  startRawConsumer,
  summary,
} from '../lib/common.mjs';
import {
  createEngine,
  engineTopics,
  instrument,
  phases,
} from '../lib/ours.mjs';

export const id = '1';
export const title = 'Time to ready, one instance, cold';
const TOPIC = 'ready';

/** One cold start of ours: fresh DataSource (initialized beforehand, as in an app) and fresh kafkajs clients. */
export async function oursOnce(ctx, prefix) {
  const dataSource = await newDataSource();
  const engine = createEngine({ brokers: ctx.brokers, prefix, dataSource });
  engine.on(TOPIC, () => {});
  const marks = instrument(engine);
  const t0 = now();
  try {
    await engine.start();
    const ready = now();
    return {
      ms: ready - t0,
      phases: phases(marks, t0, ready),
      groupId: engine.reader.groupId,
    };
  } finally {
    await engine.stop();
    await dataSource.destroy();
  }
}

/** One cold start of R: a new kafkajs client, consumer with a random group, until its first FETCH after GROUP_JOIN. */
export async function rawOnce(ctx, prefix) {
  const raw = startRawConsumer({
    brokers: ctx.brokers,
    prefix,
    topics: engineTopics(prefix, TOPIC),
  });
  try {
    await raw.ready;
    const m = raw.marks;
    return {
      ms: m.ready - m.t0,
      listOffsetsMs: m.listOffsets - m.t0,
      joinMs: m.joined - m.t0,
    };
  } finally {
    await raw.stop();
  }
}

export async function prepare(ctx, prefix) {
  await createTopics(ctx.brokers, engineTopics(prefix, TOPIC));
}

export async function run(ctx) {
  const prefix = ctx.prefix(id);
  const reps = ctx.quick ? 4 : 12;
  await prepare(ctx, prefix);
  // One discarded pair first: module JIT and the broker's first look at the topics are not "cold start".
  await oursOnce(ctx, prefix);
  await rawOnce(ctx, prefix);
  const ours = [];
  const raw = [];
  for (let i = 0; i < reps; i++) {
    // Alternate, and alternate who goes first, so drift in broker load hits both sides alike.
    const pair = i % 2 === 0 ? [oursOnce, rawOnce] : [rawOnce, oursOnce];
    for (const fn of pair) {
      const r = await fn(ctx, prefix);
      (fn === oursOnce ? ours : raw).push(r);
      await sleep(150);
    }
  }
  const oursMs = ours.map((r) => r.ms);
  const rawMs = raw.map((r) => r.ms);
  const rawListOffsets = raw.map((r) => r.listOffsetsMs);
  const phaseNames = [
    'ensureTopics',
    'lock',
    'deleteGroup',
    'offsetsSnapshot',
    'join',
    'verify',
    'gaps',
  ];
  const breakdown = Object.fromEntries(
    phaseNames.map((p) => [p, summary(ours.map((r) => r.phases[p]))]),
  );
  const oursS = summary(oursMs);
  const rawS = summary(rawMs);
  const rawLoS = summary(rawListOffsets);
  const rows = [
    {
      metric: 'ready ms (R: first FETCH after join)',
      unit: 'ms',
      ours: oursS,
      base: rawS,
      ratio: ratio(oursS.median, rawS.median),
      target: '<= 1.3',
      pass: ratio(oursS.median, rawS.median) <= 1.3,
    },
    {
      metric: 'ready ms (R: ListOffsets answered)',
      unit: 'ms',
      ours: oursS,
      base: rawLoS,
      ratio: ratio(oursS.median, rawLoS.median),
      target: 'info',
      note: 'R lower bound: its start offset is fixed here, before its first long-poll fetch',
    },
    ...phaseNames.map((p) => ({
      metric: `  ours phase: ${p}`,
      unit: 'ms',
      ours: breakdown[p],
      sub: true,
    })),
  ];
  return {
    params: {
      reps,
      discardedWarmupPairs: 1,
      lock: 'postgres',
      topics: engineTopics(prefix, TOPIC),
      consumer: 'engine defaults',
    },
    rows,
    summary: {
      oursMedianMs: oursS.median,
      rawMedianMs: rawS.median,
      rawListOffsetsMedianMs: rawLoS.median,
    },
    samples: {
      ours: ours.map((r) => ({
        ms: round(r.ms),
        phases: Object.fromEntries(
          Object.entries(r.phases).map(([k, v]) => [k, round(v)]),
        ),
      })),
      raw: raw.map((r) => ({
        ms: round(r.ms),
        listOffsetsMs: round(r.listOffsetsMs),
        joinMs: round(r.joinMs),
      })),
    },
  };
}
