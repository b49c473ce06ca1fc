import { BroadcastMessages } from '../../errors/broadcast.messages.js';
import type { BroadcastStatus } from '../../interfaces/broadcast-status.interface.js';
import { WAITS } from '../waiting-for.js';

/** What the readiness rule needs from the options. */
export interface ReadinessLimits {
  /** Bound on lastLatencyMs, or undefined when freshness is not measurable (no heartbeats). */
  maxStalenessMs: number | undefined;
  maxGroups: number;
}

/** What the liveness rule needs to know beyond the status. */
export interface LivenessFacts {
  /** Why start() failed for good (waitForReady and the startup deadline passed); else undefined. */
  startupFailure: string | undefined;
  /** How long the reader has been seen not ready, in ms; undefined while ready. */
  unreadyForMs: number | undefined;
  maxUnreadyMs: number | undefined;
}

/**
 * Why this instance should get no traffic now, or undefined: ready means holding the group and,
 * with heartbeats, a view no older than maxStalenessMs. Without heartbeats an idle service
 * receives nothing, so freshness cannot be asked for: ready is enough.
 */
export function notReadyReason(
  status: BroadcastStatus,
  limits: ReadinessLimits,
): string | undefined {
  if (status.poolExhausted) return BroadcastMessages.poolExhausted(limits.maxGroups);
  if (status.state !== 'ready') {
    // A problem retrying cannot fix (e.g. a missing ACL) says more than the wait it causes.
    const why = status.problem ?? (status.waitingFor && WAITS[status.waitingFor]);
    return why ? `reader is ${status.state}: ${why}` : `reader is ${status.state}`;
  }
  if (limits.maxStalenessMs === undefined) return undefined;
  if (status.lastLatencyMs === undefined) return 'no broadcast received yet';
  if (status.lastLatencyMs > limits.maxStalenessMs)
    return `newest broadcast is ${status.lastLatencyMs} ms old`;
  return undefined;
}

/**
 * Why this process should be restarted, or undefined. Starting and recovering are alive: the
 * engine retries by itself, and a restart cannot bring a broker back (restarting a whole fleet
 * during an outage only adds load). Dead means a startup that failed for good, stopped, or not
 * ready for longer than health.maxUnreadyMs when the application set that bound.
 */
export function notAliveReason(status: BroadcastStatus, facts: LivenessFacts): string | undefined {
  // A failed start stops the engine: its cause says more than the stop it led to.
  if (facts.startupFailure !== undefined)
    return BroadcastMessages.notAliveStartupFailed(facts.startupFailure);
  if (status.state === 'stopped') return BroadcastMessages.notAliveStopped();
  const { unreadyForMs, maxUnreadyMs } = facts;
  if (maxUnreadyMs !== undefined && unreadyForMs !== undefined && unreadyForMs > maxUnreadyMs)
    return BroadcastMessages.notAliveUnready(status.state, unreadyForMs, maxUnreadyMs);
  return undefined;
}
