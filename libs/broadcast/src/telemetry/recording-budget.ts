/** Calls skipped between two looks at the clock while the budget is spent. */
const LOOK_EVERY = 16;

/**
 * How many values a histogram series records per second at most: a token bucket refilled
 * continuously, so at ordinary broadcast rates every value is recorded and a drained backlog
 * of hundreds of thousands per second records an even spread of them in time.
 *
 * Why: the OpenTelemetry SDK hashes the attributes of every recorded value (about 0.5 µs
 * each, two histograms per handler call), which alone would cost a CPU-bound consumer a
 * third of its throughput. The outcome counters stay exact at any rate; only the latency
 * histograms thin out above the budget. While the budget is spent the clock is read only
 * every LOOK_EVERY calls: reading it costs as much as the rest of the check.
 */
export class RecordingBudget {
  private tokens: number;
  private refilledAt: number;
  private skipped = 0;

  constructor(
    /** Values per second; also the burst allowed after a quiet second. */
    private readonly perSecond: number,
  ) {
    this.tokens = perSecond;
    this.refilledAt = performance.now();
  }

  /** The time (performance.now()) when this call's values are to be recorded, else undefined. */
  take(): number | undefined {
    if (this.tokens < 1 && ++this.skipped < LOOK_EVERY) return undefined;
    this.skipped = 0;
    const now = performance.now();
    this.tokens = Math.min(
      this.perSecond,
      this.tokens + ((now - this.refilledAt) * this.perSecond) / 1000,
    );
    this.refilledAt = now;
    if (this.tokens < 1) return undefined;
    this.tokens--;
    return now;
  }
}
