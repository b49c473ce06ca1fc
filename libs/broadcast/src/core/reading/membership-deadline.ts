/**
 * When a membership's verdict is due (see GroupMembership.start): armed for the first verdict,
 * for a later generation nobody reads from yet, and for the wait for an earlier member of ours;
 * disarmed by a verdict or a stop. Expiring, it calls `expired` with the time it was given.
 * Unref'd, like every wait of the engine: the engine holds the process while it runs.
 */
export class VerdictDeadline {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly expired: (ms: number) => void) {}

  get armed(): boolean {
    return this.timer !== undefined;
  }

  /** The verdict is due within `ms` from now (replacing an earlier deadline). */
  arm(ms: number): void {
    this.disarm();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.expired(ms);
    }, ms).unref();
  }

  disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
