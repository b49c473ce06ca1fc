import type { BroadcastStatus } from '../../interfaces/broadcast-status.interface.js';

/**
 * A heartbeat send unacknowledged for this long says Kafka cannot be reached from here: an
 * acknowledgement takes milliseconds while Kafka answers, and a lagging instance's own sends
 * are acknowledged as usual.
 */
export const UNANSWERED_MS = 1_000;

/** What readiness shows of an outage it rides out (the details' `outage`). */
export interface OutageDetails {
  /** Since when, in this host's clock (epoch ms), Kafka has been away from this instance. */
  since: number;
  /** How long that has been, in ms. */
  forMs: number;
  /** The bound (health.outageGraceMs). */
  graceMs: number;
  /** What readiness would say without the grace (the wait, or the stale view). */
  reason: string;
}

/** The grace's verdict on one check. */
export type GraceVerdict =
  | { kind: 'none' }
  | { kind: 'riding'; outage: OutageDetails }
  | { kind: 'expired'; outage: OutageDetails };

/**
 * Readiness's grace through a Kafka outage (health.outageGraceMs), one per indicator.
 *
 * Why: Kafka away is away for every instance alike, and readiness down on every instance at
 * once empties the Service: the application stops serving because Kafka restarted. An episode
 * begins when an instance that was ready and fresh finds Kafka away (its reader waits for Kafka,
 * or its own heartbeat went unacknowledged for UNANSWERED_MS), or when its reader starts a rejoin
 * while its view is still fresh (a consumer lost to an outage is rejoined before the heartbeat
 * can tell). During it, readiness stays up while the reader waits for Kafka, rejoins its group
 * or reads a stale view, for at most `graceMs`; a view that turned stale needs the outage's
 * evidence. It ends once the instance is ready and fresh again. The evidence is what tells an
 * outage from an instance that falls behind while Kafka serves the others: that one's own
 * heartbeats are acknowledged, so it leaves rotation once stale, as before. A problem retrying
 * cannot fix (a missing ACL) or a pool with every id taken is never ridden out.
 */
export class OutageGrace {
  /** The instance was ready and fresh at a check (the grace only keeps a view it had). */
  private served = false;
  private since: number | undefined;
  /** Kafka was seen away during the episode under way. */
  private evidence = false;

  constructor(private readonly graceMs: number) {}

  /**
   * Judges one check; `reason` is why readiness would be down without the grace (undefined:
   * ready and fresh), `fresh` whether the newest broadcast is within maxStalenessMs (true
   * without heartbeats, which measure no freshness).
   */
  judge(
    status: BroadcastStatus,
    reason: string | undefined,
    fresh: boolean,
    now = Date.now(),
  ): GraceVerdict {
    if (reason === undefined) {
      this.served = true;
      this.since = undefined;
      this.evidence = false;
      return { kind: 'none' };
    }
    if (!this.served || !rideable(status)) return { kind: 'none' };
    if (kafkaAway(status)) this.evidence = true;
    const rejoinFresh = status.state === 'recovering' && fresh;
    if (!this.evidence && !rejoinFresh) return { kind: 'none' };
    this.since ??= now;
    const outage = { since: this.since, forMs: now - this.since, graceMs: this.graceMs, reason };
    return outage.forMs <= this.graceMs ? { kind: 'riding', outage } : { kind: 'expired', outage };
  }
}

/** Kafka cannot be reached from this instance, by its own evidence. */
function kafkaAway(status: BroadcastStatus): boolean {
  if (status.state !== 'ready' && status.waitingFor === 'kafka') return true;
  return (status.kafkaUnansweredMs ?? 0) >= UNANSWERED_MS;
}

/** What an outage and its recovery look like: a stale view, a wait for Kafka, a rejoin. */
function rideable(status: BroadcastStatus): boolean {
  if (status.problem !== undefined || status.poolExhausted) return false;
  if (status.state === 'ready') return true;
  return (
    status.state === 'recovering' &&
    (status.waitingFor === undefined ||
      status.waitingFor === 'kafka' ||
      status.waitingFor === 'group')
  );
}
