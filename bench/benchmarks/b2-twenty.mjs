// 2. Twenty instances starting at once (lock mode, one DataSource each): time until all are ready.
import {
  engineLogger,
  newDataSource,
  now,
  ratio,
  round,
  sleep,
  startRawConsumer,
  summary,
} from '../lib/common.mjs';
import {
  createAdvisoryLockProvider,
  createEngine,
  engineTopics,
  instrument,
} from '../lib/ours.mjs';
import {
  delayFirstHeartbeat,
  ServerSideWalkProvider,
} from '../lib/prototypes.mjs';
import { oursOnce, prepare, rawOnce } from './b1-ready.mjs';

export const id = '2';
export const title = '20 instances starting at once';
const TOPIC = 'ready';

async function oursTwenty(
  ctx,
  prefix,
  n,
  { walk = false, heartbeat = false } = {},
) {
  // The DataSources belong to the applications: initialized before the clock starts.
  const dataSources = await Promise.all(
    Array.from({ length: n }, () => newDataSource()),
  );
  const engines = dataSources.map((dataSource, i) =>
    createEngine({
      brokers: ctx.brokers,
      prefix,
      dataSource,
      clientId: `bench-ours-${i}`,
    }).on(TOPIC, () => {}),
  );
  // 10 s x 0.25: the engine's default heartbeat interval and jitter.
  if (heartbeat) engines.forEach((e) => delayFirstHeartbeat(e, 2500));
  if (walk) {
    // Same namespace key as the engine's own provider: `<prefix>broadcastConsumer`.
    const key = createAdvisoryLockProvider(
      dataSources[0],
      `${prefix}broadcastConsumer`,
      engineLogger,
    ).namespaceKey;
    engines.forEach((e, i) =>
      e.locks.bind(new ServerSideWalkProvider(dataSources[i], key)),
    );
  }
  const marks = engines.map((e) => instrument(e));
  const cpu0 = process.cpuUsage();
  const t0 = now();
  try {
    const readyAt = await Promise.all(
      engines.map((e) => e.start().then(() => now() - t0)),
    );
    const cpu = process.cpuUsage(cpu0);
    return {
      allMs: Math.max(...readyAt),
      cpuMsPerInstance: round((cpu.user + cpu.system) / 1000 / n),
      lockWalkEndMs: round(
        Math.max(
          ...marks.map(
            (m) => m.spans.filter((s) => s.name === 'lock').at(-1).end - t0,
          ),
        ),
      ),
      perInstanceMs: readyAt.map((v) => round(v)),
      lockProbes: marks.map(
        (m) => m.spans.filter((s) => s.name === 'lock').length,
      ),
      deletes: marks.map(
        (m) => m.spans.filter((s) => s.name === 'deleteGroup').length,
      ),
      groups: engines.map((e) => e.reader.groupId),
    };
  } finally {
    await Promise.all(engines.map((e) => e.stop()));
    await Promise.all(dataSources.map((d) => d.destroy()));
  }
}

async function rawTwenty(ctx, prefix, n) {
  const cpu0 = process.cpuUsage();
  const t0 = now();
  const consumers = Array.from({ length: n }, (_, i) =>
    startRawConsumer({
      brokers: ctx.brokers,
      prefix,
      topics: engineTopics(prefix, TOPIC),
      clientId: `bench-raw-${i}`,
    }),
  );
  try {
    const readyAt = await Promise.all(
      consumers.map((c) => c.ready.then(() => c.marks.ready - t0)),
    );
    const cpu = process.cpuUsage(cpu0);
    const lo = consumers.map((c) => c.marks.listOffsets - t0);
    return {
      allMs: Math.max(...readyAt),
      allListOffsetsMs: Math.max(...lo),
      cpuMsPerInstance: round((cpu.user + cpu.system) / 1000 / n),
      perInstanceMs: readyAt.map((v) => round(v)),
    };
  } finally {
    await Promise.all(consumers.map((c) => c.stop()));
  }
}

/**
 * The lock walk alone, without Kafka: n providers (own DataSource each) walk ids lowest first at
 * once, as the allocator does, until each holds one. Separates the walk's cost from Kafka's.
 */
async function lockWalk(n, namespace) {
  const dataSources = await Promise.all(
    Array.from({ length: n }, () => newDataSource()),
  );
  const providers = dataSources.map((d) =>
    createAdvisoryLockProvider(d, namespace, engineLogger),
  );
  const t0 = now();
  try {
    const held = await Promise.all(
      providers.map(async (p) => {
        for (let id = 0, probes = 1; ; id++, probes++) {
          const lock = await p.tryLock(id);
          if (lock) return { lock, probes, ms: now() - t0 };
        }
      }),
    );
    const allMs = Math.max(...held.map((h) => h.ms));
    await Promise.all(held.map((h) => h.lock.release()));
    return { allMs, probes: held.reduce((s, h) => s + h.probes, 0) };
  } finally {
    await Promise.all(dataSources.map((d) => d.destroy()));
  }
}

/**
 * PROTOTYPE of a cheaper walk (not in the library): the walk runs inside PostgreSQL, one statement
 * per instance on its dedicated connection:
 *   SELECT id FROM generate_series(0, 199) AS id WHERE pg_try_advisory_lock(ns, id) LIMIT 1
 * The Limit node stops pulling rows at the first id locked, so exactly one lock is taken, lowest
 * free first. Same lock keys as the library's provider (two-int4 form).
 */
async function serverSideWalk(n, namespace) {
  const dataSources = await Promise.all(
    Array.from({ length: n }, () => newDataSource()),
  );
  const key = createAdvisoryLockProvider(
    dataSources[0],
    namespace,
    engineLogger,
  ).namespaceKey;
  const t0 = now();
  const runners = dataSources.map((d) => d.createQueryRunner());
  try {
    const held = await Promise.all(
      runners.map(async (qr) => {
        await qr.connect();
        const rows = await qr.query(
          'SELECT id FROM generate_series(0, 199) AS id WHERE pg_try_advisory_lock($1::int4, id::int4) LIMIT 1',
          [key],
        );
        return { id: rows[0]?.id, ms: now() - t0 };
      }),
    );
    const allMs = Math.max(...held.map((h) => h.ms));
    const ids = held.map((h) => h.id).sort((a, b) => a - b);
    await Promise.all(
      runners.map((qr, i) =>
        qr.query('SELECT pg_advisory_unlock($1::int4, $2::int4)', [
          key,
          held[i].id,
        ]),
      ),
    );
    return { allMs, probes: n, ids, distinct: new Set(ids).size };
  } finally {
    await Promise.all(runners.map((qr) => qr.release()));
    await Promise.all(dataSources.map((d) => d.destroy()));
  }
}

export async function run(ctx) {
  const prefix = ctx.prefix(id);
  const n = 20;
  const reps = 3;
  await prepare(ctx, prefix);
  // The single-instance baseline comes from benchmark 1 of this run; without it, measure it here.
  let single = ctx.results['1']?.summary;
  let singleSource = 'benchmark 1 of this run';
  if (!single) {
    singleSource = 'measured here (benchmark 1 not selected)';
    await oursOnce(ctx, prefix);
    await rawOnce(ctx, prefix);
    const o = [];
    const r = [];
    for (let i = 0; i < 5; i++) {
      o.push((await oursOnce(ctx, prefix)).ms);
      const rr = await rawOnce(ctx, prefix);
      r.push(rr.ms);
    }
    single = {
      oursMedianMs: summary(o).median,
      rawMedianMs: summary(r).median,
    };
  }
  const ours = [];
  const raw = [];
  const proto = { walk: [], heartbeat: [], both: [] };
  for (let i = 0; i < reps; i++) {
    ours.push(await oursTwenty(ctx, prefix, n));
    await sleep(500);
    raw.push(await rawTwenty(ctx, prefix, n));
    await sleep(500);
    proto.walk.push(await oursTwenty(ctx, prefix, n, { walk: true }));
    await sleep(500);
    proto.heartbeat.push(await oursTwenty(ctx, prefix, n, { heartbeat: true }));
    await sleep(500);
    proto.both.push(
      await oursTwenty(ctx, prefix, n, { walk: true, heartbeat: true }),
    );
    await sleep(500);
  }
  const walks = [];
  for (let i = 0; i < reps; i++)
    walks.push(await lockWalk(n, `${prefix}walk-${i}`));
  const skipWalks = [];
  for (let i = 0; i < reps; i++)
    skipWalks.push(await serverSideWalk(n, `${prefix}srv-${i}`));
  const walk1 = [];
  for (let i = 0; i < 5; i++)
    walk1.push((await lockWalk(1, `${prefix}walk1-${i}`)).allMs);
  const oursS = summary(ours.map((r) => r.allMs));
  const rawS = summary(raw.map((r) => r.allMs));
  const rawLoS = summary(raw.map((r) => r.allListOffsetsMs));
  const rows = [
    {
      metric: `ours: all ${n} ready vs 1 instance (median ${single.oursMedianMs} ms)`,
      unit: 'ms',
      ours: oursS,
      base: {
        n: 1,
        min: single.oursMedianMs,
        median: single.oursMedianMs,
        max: single.oursMedianMs,
      },
      ratio: ratio(oursS.median, single.oursMedianMs),
      target: '<= 2',
      pass: ratio(oursS.median, single.oursMedianMs) <= 2,
    },
    {
      metric: `R: all ${n} ready vs 1 instance (median ${single.rawMedianMs} ms)`,
      unit: 'ms',
      ours: rawS,
      base: {
        n: 1,
        min: single.rawMedianMs,
        median: single.rawMedianMs,
        max: single.rawMedianMs,
      },
      ratio: ratio(rawS.median, single.rawMedianMs),
      target: 'info',
      note: "the baseline's own scaling, for comparison",
    },
    {
      metric: `all ${n} ready: ours vs R (first FETCH)`,
      unit: 'ms',
      ours: oursS,
      base: rawS,
      ratio: ratio(oursS.median, rawS.median),
      target: 'info',
    },
    {
      metric: `all ${n} ready: ours vs R (ListOffsets)`,
      unit: 'ms',
      ours: oursS,
      base: rawLoS,
      ratio: ratio(oursS.median, rawLoS.median),
      target: 'info',
    },
    {
      metric: `  ours: last lock won at (within the ${n}-start)`,
      unit: 'ms',
      ours: summary(ours.map((r) => r.lockWalkEndMs)),
      sub: true,
    },
    {
      metric: `  lock walk alone, ${n} at once vs 1 (no Kafka)`,
      unit: 'ms',
      ours: summary(walks.map((w) => w.allMs)),
      base: summary(walk1),
      ratio: ratio(
        summary(walks.map((w) => w.allMs)).median,
        summary(walk1).median,
      ),
      sub: true,
      note: `${walks[0]?.probes} lock queries for ${n} instances (lowest-first: n(n+1)/2)`,
    },
    {
      metric: `  PROTOTYPE server-side walk vs current walk, ${n} at once`,
      unit: 'ms',
      ours: summary(skipWalks.map((w) => w.allMs)),
      base: summary(walks.map((w) => w.allMs)),
      ratio: ratio(
        summary(skipWalks.map((w) => w.allMs)).median,
        summary(walks.map((w) => w.allMs)).median,
      ),
      sub: true,
      note: `not in the library: one statement per instance tries ids in order inside PostgreSQL; ${skipWalks[0]?.probes} queries instead of ${walks[0]?.probes}; ids taken ${skipWalks.every((w) => w.distinct === n && w.ids[n - 1] === n - 1) ? `0..${n - 1}, all distinct` : 'NOT 0..n-1: ' + JSON.stringify(skipWalks.map((w) => w.ids))}`,
    },
    ...[
      ['walk', 'server-side lock walk'],
      ['heartbeat', 'first heartbeat delayed 0-2.5 s'],
      ['both', 'both prototypes'],
    ].map(([key, label]) => {
      const p = summary(proto[key].map((r) => r.allMs));
      return {
        metric: `  PROTOTYPE ${label}: all ${n} ready vs current`,
        unit: 'ms',
        ours: p,
        base: oursS,
        ratio: ratio(p.median, oursS.median),
        sub: true,
        note:
          key === 'walk'
            ? `provider bound via engine.locks.bind(); last lock won at ${summary(proto.walk.map((r) => r.lockWalkEndMs)).median} ms (median) instead of ${summary(ours.map((r) => r.lockWalkEndMs)).median} ms`
            : key === 'both'
              ? `vs 1 instance: ${ratio(p.median, single.oursMedianMs)}x; CPU/instance start ${summary(proto.both.map((r) => r.cpuMsPerInstance)).median} ms`
              : undefined,
      };
    }),
    {
      metric: `  client CPU per instance start, ours vs R`,
      unit: 'ms',
      ours: summary(ours.map((r) => r.cpuMsPerInstance)),
      base: summary(raw.map((r) => r.cpuMsPerInstance)),
      ratio: ratio(
        summary(ours.map((r) => r.cpuMsPerInstance)).median,
        summary(raw.map((r) => r.cpuMsPerInstance)).median,
      ),
      sub: true,
      note: 'process.cpuUsage() of the one process hosting all instances, start -> all ready',
    },
  ];
  return {
    params: {
      instances: n,
      reps,
      lock: 'postgres, one DataSource per engine',
      singleBaseline: singleSource,
    },
    rows,
    samples: {
      ours,
      raw,
      prototypes: proto,
      single,
      lockWalk: {
        twenty: walks.map((w) => ({ ms: round(w.allMs), probes: w.probes })),
        one: walk1.map((v) => round(v)),
        serverSideWalkPrototype: skipWalks.map((w) => ({
          ms: round(w.allMs),
          queries: w.probes,
          ids: w.ids,
        })),
      },
    },
  };
}
