/** Each heartbeat's lateness counts for this share of the next one's estimate. */
const DECAY = 0.8;

/**
 * How late heartbeats arrive here compared with the interval they are sent at: a decaying
 * maximum of "gap between consecutive arrivals − interval". On a loaded host the sender's
 * timer fires late, the record waits in the broker and in this process's socket while its
 * event loop is busy; none of that means the sender fell silent. Backups hold back by twice
 * this estimate before taking over, capped at half an interval so that a dead incumbent is
 * still replaced within health's default bound of 2 × interval.
 */
export class ArrivalLateness {
  #lateMs = 0;
  #previousAt: number | undefined;

  constructor(private readonly intervalMs: number) {}

  /** A heartbeat (anyone's) arrived at `at`, in this host's clock. */
  heard(at: number): void {
    if (this.#previousAt !== undefined && at > this.#previousAt) {
      const excess = at - this.#previousAt - this.intervalMs;
      // Gaps of more than two intervals are a sender that stopped, not a late one.
      const late = excess > 0 && excess < this.intervalMs ? excess : 0;
      this.#lateMs = Math.max(late, this.#lateMs * DECAY);
    }
    this.#previousAt = at;
  }

  /** Extra wait for a backup, in ms. */
  get holdBackMs(): number {
    return Math.min(this.intervalMs / 2, 2 * this.#lateMs);
  }
}
