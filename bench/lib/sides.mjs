// The sides of the side-by-side figures: our engine on each Kafka adapter, and R on each raw
// client. What the benchmarks share to run them in a rotating order and to turn their medians into
// the ratio rows: ours-X / R-X for each client, and the cross rows between the clients.
import { info, now, ratio, startRawConsumer } from './common.mjs';
import { createEngine, engineTopics } from './ours.mjs';
import { startRawPlatformaticConsumer } from './raw-platformatic.mjs';

/**
 * R on @confluentinc/kafka-javascript, when its build is in node_modules (scripts/confluent-client.mjs,
 * which npm test and .ci/run run; not a dependency of the workspace). Without it the bench runs
 * the two other clients' sides and says so.
 */
const confluent = await import('./raw-confluent.mjs').catch((error) => {
  info(
    `no confluent sides: @confluentinc/kafka-javascript does not load (${error.message.split('\n')[0]}); node scripts/confluent-client.mjs puts it into node_modules`,
  );
  return undefined;
});

/**
 * The clients of the side-by-side benchmarks (1 to 4, 7 and 12): each has an ours and an R side.
 * BENCH_CLIENTS=kafkajs,platformatic narrows them.
 */
export const CLIENTS = Object.freeze(
  ['kafkajs', 'platformatic', ...(confluent ? ['confluent'] : [])].filter(
    (c) => !process.env.BENCH_CLIENTS || process.env.BENCH_CLIENTS.split(',').includes(c),
  ),
);

/** `key` names the side in results; `ours` tells the engine from R; `client` the Kafka client. */
export const SIDES = Object.freeze(
  [true, false].flatMap((ours) =>
    CLIENTS.map((client) => ({ key: `${ours ? 'ours' : 'R'}-${client}`, ours, client })),
  ),
);

export const sideKey = (ours, client) => `${ours ? 'ours' : 'R'}-${client}`;

/**
 * The order of round `round`: a balanced Latin square (Williams design) over the sides, so that
 * over as many rounds as there are sides each side takes every place once and follows every other
 * side once (drift in the box's load, and what the previous side left behind, hit all alike).
 */
export function rotation(round, sides = SIDES) {
  const n = sides.length;
  // First row 0, 1, n-1, 2, n-2, ...; row r adds r to each (mod n).
  const first = [0];
  for (let lo = 1, hi = n - 1; first.length < n;) {
    first.push(lo++);
    if (first.length < n) first.push(hi--);
  }
  return first.map((i) => sides[(i + round) % n]);
}

/** R on `client` (see startRawConsumer and startRawPlatformaticConsumer for what `ready` means). */
export function startRaw(client, options) {
  if (client === 'kafkajs') return startRawConsumer(options);
  if (options.eachBatch) throw new Error('eachBatch is a kafkajs baseline only');
  if (client === 'confluent') return confluent.startRawConfluentConsumer(options);
  return startRawPlatformaticConsumer(options);
}

/** The raw producer of `client` for the sides that publish (undefined: the caller's kafkajs one). */
export function rawProducerOf(client, brokers) {
  return client === 'confluent' ? confluent.rawConfluentProducer(brokers) : undefined;
}

/** `{ [side key]: [] }`, one list of samples per side. */
export function perSide(sides = SIDES) {
  return Object.fromEntries(sides.map((s) => [s.key, []]));
}

/**
 * One ratio row of a figure: side `a` over side `b` (`by[key]` = summary()), as the runner's
 * table shows it (`ours` is a, `base` is b). `pass(ratio)` decides `target`, when given.
 */
export function ratioRow({ metric, unit, by, a, b, target, pass, note, sub = false }) {
  const r = ratio(by[a]?.median, by[b]?.median);
  return {
    metric: `${sub ? '  ' : ''}${metric}`,
    unit,
    ours: by[a],
    base: by[b],
    ratio: r,
    sides: [a, b],
    ...(target && { target }),
    ...(target && pass && { pass: pass(r) }),
    ...(note && { note }),
    ...(sub && { sub: true }),
  };
}

/**
 * The ratio rows of one figure from per-side summaries (`by[key]` = summary()): ours / R on each
 * client (the first a main row with `target`, the second a sub-row with the same target), then
 * the cross rows, platformatic / kafkajs for ours and for R; then the same three rows for
 * confluent when `by` has its sides. `pass(ratio)` decides a target.
 */
export function fourSideRows({ metric, unit, by, target = 'info', pass, note, sub = false }) {
  const row = (label, a, b, opts = {}) =>
    ratioRow({
      metric: `${metric}: ${label}`,
      unit,
      by,
      a,
      b,
      target: opts.target,
      pass,
      note: opts.note,
      sub: sub || opts.sub,
    });
  return [
    row('ours-kafkajs vs R-kafkajs', 'ours-kafkajs', 'R-kafkajs', { target, note }),
    row('ours-platformatic vs R-platformatic', 'ours-platformatic', 'R-platformatic', {
      target,
      sub: true,
    }),
    row('cross, ours-platformatic vs ours-kafkajs', 'ours-platformatic', 'ours-kafkajs', {
      sub: true,
    }),
    row('cross, R-platformatic vs R-kafkajs', 'R-platformatic', 'R-kafkajs', { sub: true }),
    // The third client's rows after the first four (benchmark 7 takes the ours vs R rows and
    // ours' cross rows), when the figure has its sides.
    ...(by['ours-confluent'] || by['R-confluent']
      ? [
          row('ours-confluent vs R-confluent', 'ours-confluent', 'R-confluent', {
            target,
            sub: true,
          }),
          row('cross, ours-confluent vs ours-kafkajs', 'ours-confluent', 'ours-kafkajs', {
            sub: true,
          }),
          row('cross, R-confluent vs R-kafkajs', 'R-confluent', 'R-kafkajs', { sub: true }),
        ]
      : []),
  ];
}

/**
 * A factory of long-lived instances of `side` (`{ ours, client, groupProtocol? }`) that read
 * `topic` under `prefix`: each call builds one (ours: a DataSource from `newDataSource()`,
 * initialized here, outside any clock) and returns `{ start(), stop() }`; start() resolves when it
 * is ready (ours: engine.start(); R: its first fetch after the join).
 */
export function instanceFactory(side, { brokers, prefix, topic, newDataSource }) {
  const groupProtocol = side.groupProtocol;
  if (!side.ours)
    return async () => {
      let raw;
      return {
        start: () => {
          raw = startRaw(side.client, {
            brokers,
            prefix,
            topics: engineTopics(prefix, topic),
            ...(groupProtocol && { groupProtocol }),
          });
          return raw.ready;
        },
        stop: () => raw.stop(),
      };
    };
  return async () => {
    const dataSource = await newDataSource();
    const engine = createEngine({
      brokers,
      prefix,
      dataSource,
      client: side.client,
      ...(groupProtocol && { kafka: { groupProtocol } }),
    }).on(topic, () => {});
    return {
      start: () => engine.start(),
      stop: async () => {
        await engine.stop();
        await dataSource.destroy();
      },
    };
  };
}

/** Builds one instance (outside the clock) and starts it; resolves with it and its time to ready. */
export async function startTimed(factory) {
  const instance = await factory();
  const t0 = now();
  await instance.start();
  return { instance, ms: now() - t0 };
}
