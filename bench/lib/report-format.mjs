// Number formats of bench/report.mjs (and docs/BENCHMARKS.md's tables).

/** 3 significant digits below 100, whole numbers above, thousands separated. */
export function num(v) {
  if (v === undefined || v === null || !Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a >= 1000) return Math.round(v).toLocaleString('en-US');
  if (a >= 100) return String(Math.round(v));
  if (a >= 10) return v.toFixed(1);
  return v.toFixed(2);
}

/** A summary as `median (min–max)`, or the one value; `–` when absent. */
export const cell = (s) =>
  !s?.n ? '–' : s.min === s.max ? num(s.median) : `${num(s.median)} (${num(s.min)}–${num(s.max)})`;

/** A ratio with two decimals, or `–`. */
export const ratioText = (q) => (q === undefined || !Number.isFinite(q) ? '–' : q.toFixed(2));

/** A count: a whole number, thousands separated. */
export const count = (v) =>
  v === undefined || v === null || !Number.isFinite(v)
    ? '–'
    : Math.round(v).toLocaleString('en-US');
