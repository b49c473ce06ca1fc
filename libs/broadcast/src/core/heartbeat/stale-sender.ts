/** Backups take over once health's staleness gets this far from one interval to health's bound… */
const TAKEOVER_FROM = 0.5;
/** …and at the latest this far, leaving the rest of the bound for their heartbeat to arrive. */
const TAKEOVER_TO = 0.8;

/**
 * Freshness as health measures it (the newest record timestamp, clamped to its arrival), for
 * the heartbeat. Arrival times alone cannot tell a sender whose clock lags: its heartbeats come
 * on time, but each looks as old as the lag to everyone else, and a lag of more than
 * maxStaleness − interval takes health down on the whole fleet while nobody takes over.
 *
 * So a backup also takes over once its view is stale by health's measure, between halfway and
 * 80 % of the way from one interval to maxStaleness, whatever the arrival times say: a sender on
 * time with a true clock keeps every view below one interval plus the delivery delay, so this
 * only replaces senders whose records look stale. And an incumbent steps down when it hears a
 * heartbeat stamped further ahead of its arrival than half that room: its own clock lags that
 * sender's by enough for its records to set the backups' takeover off, which is why that sender
 * sent. The fleet's sender thereby moves to a clock that looks fresh to everyone.
 */
export class StaleSender {
  /** maxStaleness − interval, the room a sender's records have to look older than one interval. */
  readonly #roomMs: number;

  constructor(
    private readonly intervalMs: number,
    maxStalenessMs: number,
  ) {
    this.#roomMs = maxStalenessMs - intervalMs;
  }

  /**
   * The staleness (now − newestTimestamp, ms) at which a backup takes over, for its position in
   * [0, 1] (see spreadPosition). Never when health's bound leaves no room beyond one interval:
   * health then flaps between heartbeats anyway, and backups would all outrun the incumbent.
   */
  takeoverAtMs(position: number): number {
    if (this.#roomMs <= 0) return Infinity;
    const share = TAKEOVER_FROM + (TAKEOVER_TO - TAKEOVER_FROM) * position;
    return this.intervalMs + this.#roomMs * share;
  }

  /**
   * True when a heartbeat stamped `stamp` (its sender's clock) that arrived at `at` (ours) comes
   * from a clock far enough ahead of ours that our records look stale next to it.
   */
  outpaces(stamp: number, at: number): boolean {
    return this.#roomMs > 0 && stamp - at > this.#roomMs * TAKEOVER_FROM;
  }
}
