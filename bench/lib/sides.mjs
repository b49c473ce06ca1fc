// The four sides of the side-by-side figures: our engine on each Kafka adapter, and R on each raw
// client. What the benchmarks share to run them in a rotating order and to turn their medians into
// the ratio rows: ours-X / R-X for each client, and the cross rows between the clients.
import { ratio, startRawConsumer } from './common.mjs';
import { startRawPlatformaticConsumer } from './raw-platformatic.mjs';

export const CLIENTS = Object.freeze(['kafkajs', 'platformatic']);

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
  return startRawPlatformaticConsumer(options);
}

/** `{ [side key]: [] }`, one list of samples per side. */
export function perSide(sides = SIDES) {
  return Object.fromEntries(sides.map((s) => [s.key, []]));
}

/**
 * The ratio rows of one figure from per-side summaries (`by[key]` = summary()): ours / R on each
 * client (the first a main row with `target`, the second a sub-row with the same target), then
 * the cross rows, platformatic / kafkajs for ours and for R. `pass(ratio)` decides a target.
 */
export function fourSideRows({ metric, unit, by, target = 'info', pass, note, sub = false }) {
  const row = (label, a, b, opts = {}) => {
    const r = ratio(by[a]?.median, by[b]?.median);
    return {
      metric: `${sub || opts.sub ? '  ' : ''}${metric}: ${label}`,
      unit,
      ours: by[a],
      base: by[b],
      ratio: r,
      sides: [a, b],
      ...(opts.target && { target: opts.target }),
      ...(opts.target && pass && { pass: pass(r) }),
      ...(opts.note && { note: opts.note }),
      ...((sub || opts.sub) && { sub: true }),
    };
  };
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
  ];
}
