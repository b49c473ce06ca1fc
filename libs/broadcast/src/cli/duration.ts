const UNITS_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** Parses "500ms", "30s", "5m", "2h", "1d" into milliseconds; throws naming the option otherwise. */
export function parseDuration(option: string, text: string): number {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) throw new Error(`${option} must be a duration like 30s, 5m or 2h, got '${text}'`);
  return Number(match[1]) * UNITS_MS[match[2]!]!;
}
