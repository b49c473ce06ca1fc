import type { HeldLock } from '../interfaces/advisory-lock.interface.js';

/**
 * Checks a held lock on its own connection every `intervalMs`. A lock whose session died may
 * already belong to another instance, so `onLost` must stop using the group at once.
 */
export class LockWatch {
  private timer: NodeJS.Timeout | undefined;
  private checking = false;

  constructor(
    private readonly intervalMs: number,
    private readonly current: () => HeldLock | undefined,
    private readonly onLost: (lock: HeldLock) => void,
  ) {}

  start(): void {
    if (this.timer || this.intervalMs <= 0) return;
    this.timer = setInterval(() => void this.check(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async check(): Promise<void> {
    const lock = this.current();
    if (!lock || this.checking) return;
    this.checking = true;
    try {
      const held = await lock.isHeld().catch(() => false);
      if (!held && this.current() === lock) this.onLost(lock);
    } finally {
      this.checking = false;
    }
  }
}
