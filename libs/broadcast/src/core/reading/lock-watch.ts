import type { HeldLock } from '../../interfaces/advisory-lock.interface.js';

/**
 * Checks a held lock on its own connection every `intervalMs`. A lock whose session died may
 * already belong to another instance, so `onLost` must stop using the group at once.
 */
export class LockWatch {
  private timer: NodeJS.Timeout | undefined;
  private checking = false;
  /** Stopped for good: a start() after stop() must not bring the checks back. */
  private stopped = false;

  constructor(
    private readonly intervalMs: number,
    private readonly current: () => HeldLock | undefined,
    private readonly onLost: (lock: HeldLock) => void,
  ) {}

  start(): void {
    if (this.timer || this.stopped || this.intervalMs <= 0) return;
    this.timer = setInterval(() => void this.check(), this.intervalMs);
    this.timer.unref();
  }

  /** Ends the checks for good, including the verdict of a check in flight. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async check(): Promise<void> {
    const lock = this.current();
    if (!lock || this.checking) return;
    this.checking = true;
    try {
      const held = await lock.isHeld().catch(() => false);
      if (!held && !this.stopped && this.current() === lock) this.onLost(lock);
    } finally {
      this.checking = false;
    }
  }
}
