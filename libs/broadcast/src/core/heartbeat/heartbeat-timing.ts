/**
 * Who sends next. The sender of the last heartbeat (the incumbent) sends again after one
 * quiet interval; every other instance waits longer, so in a steady cluster exactly one
 * instance heartbeats. A newcomer has heard nothing since it started and knew no heartbeat
 * younger than one interval when it did (an empty or quiet topic).
 */
export type HeartbeatRole = 'incumbent' | 'backup' | 'newcomer';

/**
 * Timers for a takeover are spread so that the earliest is alone whatever the number of
 * instances N: position x = 1 + ln(u) / ln(SPREAD_INSTANCES) for u uniform in (0, 1], clamped
 * at 0. The expected number of instances firing within a propagation delay d of the
 * earliest is about (d / window) · ln(SPREAD_INSTANCES), independent of N up to this size
 * (exponential feedback suppression, as in reliable-multicast NACK timers).
 */
const SPREAD_INSTANCES = 1_000;
/** Backups never fire in the first 40 % of their window: room for a late incumbent's send to arrive. */
export const BACKUP_GUARD = 0.4;

/** Position in a takeover window, in [0, 1]: rarely early, mostly late. */
export function spreadPosition(uniform: number): number {
  const u = Math.min(1, Math.max(Number.MIN_VALUE, 1 - uniform));
  return Math.max(0, 1 + Math.log(u) / Math.log(SPREAD_INSTANCES));
}

/**
 * The quiet gap (ms) an instance in `role` waits for before it sends, given its draw in
 * [0, 1). The incumbent: one interval. A backup: between 1 + 0.4 jitter and 1 + jitter
 * intervals, spread by `spreadPosition`. A newcomer: within jitter × interval of its start,
 * spread the same way, so a fleet that starts at once sends about one, not N.
 */
export function heartbeatWait(
  role: HeartbeatRole,
  draw: number,
  intervalMs: number,
  jitter: number,
): number {
  const x = spreadPosition(draw);
  if (role === 'incumbent') return intervalMs;
  if (role === 'newcomer') return intervalMs * jitter * x;
  return intervalMs * (1 + jitter * (BACKUP_GUARD + (1 - BACKUP_GUARD) * x));
}

/**
 * Milliseconds to wait before the next heartbeat, 0 meaning "send now": the wanted quiet gap
 * minus the shorter of "since anything was received" and "since we sent (or started)".
 */
export function heartbeatDelay(
  now: number,
  newest: number | undefined,
  lastSent: number | undefined,
  wantMs: number,
) {
  // A timestamp from the future (clock skew between hosts) counts as just now, not later.
  const sinceReceived = newest === undefined ? Infinity : Math.max(0, now - newest);
  const sinceSent = lastSent === undefined ? Infinity : now - lastSent;
  return Math.max(0, wantMs - Math.min(sinceReceived, sinceSent));
}
