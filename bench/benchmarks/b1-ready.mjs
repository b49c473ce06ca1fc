// 1. Time to ready, one instance, cold: engine.start() on each adapter vs R, a raw consumer with a
// random group on each client (kafkajs and @platformatic/kafka).
import { createTopics, newDataSource, now, round, sleep, summary } from '../lib/common.mjs';
import { createEngine, engineTopics, instrument, phases } from '../lib/ours.mjs';
import {
  CLIENTS,
  SIDES,
  fourSideRows,
  perSide,
  rotation,
  sideKey,
  startRaw,
} from '../lib/sides.mjs';

export const id = '1';
export const title = 'Time to ready, one instance, cold';
const TOPIC = 'ready';

/**
 * One cold start of ours: fresh DataSource (initialized beforehand, as in an app) and fresh clients.
 * `groupProtocol` is the engine's `kafka.groupProtocol` (the adapter's default when undefined).
 */
export async function oursOnce(ctx, prefix, client = 'kafkajs', groupProtocol = undefined) {
  const dataSource = await newDataSource();
  const engine = createEngine({
    brokers: ctx.brokers,
    prefix,
    dataSource,
    client,
    ...(groupProtocol && { kafka: { groupProtocol } }),
  });
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

/** One cold start of R: a new client, a consumer with a random group, until its first fetch after the join. */
export async function rawOnce(ctx, prefix, client = 'kafkajs', groupProtocol = undefined) {
  const raw = startRaw(client, {
    brokers: ctx.brokers,
    prefix,
    topics: engineTopics(prefix, TOPIC),
    ...(groupProtocol && { groupProtocol }),
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

/** One cold start of `side` (one of SIDES, or a side with a `groupProtocol` as in benchmark 12). */
export function startOnce(ctx, prefix, side) {
  return (side.ours ? oursOnce : rawOnce)(ctx, prefix, side.client, side.groupProtocol);
}

/** Creates the topics of one instance; `create` is another createTopics (a fresh cluster's). */
export async function prepare(ctx, prefix, create = createTopics) {
  await create(ctx.brokers, engineTopics(prefix, TOPIC));
}

export const PHASES = [
  'ensureTopics',
  'lock',
  'deleteGroup',
  'offsetsSnapshot',
  'join',
  'verify',
  'gaps',
];

export async function run(ctx) {
  const prefix = ctx.prefix(id);
  const reps = ctx.quick ? 4 : 12;
  await prepare(ctx, prefix);
  // One discarded start of each side first: module JIT and the broker's first look at the topics
  // are not "cold start".
  for (const side of SIDES) await startOnce(ctx, prefix, side);
  const samples = perSide();
  for (let i = 0; i < reps; i++) {
    // The order rotates every repetition, so drift in broker load hits every side alike.
    for (const side of rotation(i)) {
      samples[side.key].push(await startOnce(ctx, prefix, side));
      await sleep(150);
    }
  }
  const ms = Object.fromEntries(
    SIDES.map((s) => [s.key, summary(samples[s.key].map((r) => r.ms))]),
  );
  // R's lower bound: the moment its start offsets were fixed, before its first long-poll fetch.
  const listOffsets = Object.fromEntries(
    CLIENTS.map((c) => [
      sideKey(false, c),
      summary(samples[sideKey(false, c)].map((r) => r.listOffsetsMs)),
    ]),
  );
  const rows = [
    ...fourSideRows({
      metric: 'ready ms (R: first fetch after join)',
      unit: 'ms',
      by: ms,
      target: '<= 1.3',
      pass: (r) => r <= 1.3,
    }),
    ...fourSideRows({
      metric: 'ready ms (R: start offsets answered)',
      unit: 'ms',
      by: { ...ms, ...listOffsets },
      note: 'R lower bound: its start offset is fixed here, before its first long-poll fetch',
    }).slice(0, 2),
  ];
  const breakdown = {};
  for (const client of CLIENTS) {
    const key = sideKey(true, client);
    breakdown[key] = Object.fromEntries(
      PHASES.map((p) => [p, summary(samples[key].map((r) => r.phases[p]))]),
    );
    rows.push(
      ...PHASES.map((p) => ({
        metric: `  ${key} phase: ${p}`,
        unit: 'ms',
        ours: breakdown[key][p],
        sub: true,
      })),
    );
  }
  return {
    params: {
      reps,
      discardedWarmupStarts: 1,
      order: `the ${SIDES.length} sides rotated by one every repetition`,
      lock: 'postgres',
      topics: engineTopics(prefix, TOPIC),
      consumer: 'engine defaults',
    },
    rows,
    summary: {
      // Kept for benchmark 2 and older readers: the kafkajs sides.
      oursMedianMs: ms['ours-kafkajs'].median,
      rawMedianMs: ms['R-kafkajs'].median,
      rawListOffsetsMedianMs: listOffsets['R-kafkajs'].median,
      sides: ms,
      rawListOffsets: listOffsets,
      phases: breakdown,
    },
    samples: Object.fromEntries(
      SIDES.map((s) => [
        s.key,
        samples[s.key].map((r) =>
          s.ours
            ? {
                ms: round(r.ms),
                phases: Object.fromEntries(Object.entries(r.phases).map(([k, v]) => [k, round(v)])),
              }
            : {
                ms: round(r.ms),
                listOffsetsMs: round(r.listOffsetsMs),
                joinMs: round(r.joinMs),
              },
        ),
      ]),
    ),
  };
}
