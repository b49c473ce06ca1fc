import { BackgroundWork } from '../../shared/background-work.js';

/** One retry taken by the scheduler: run when its wait is over, or cancelled at stop. */
export interface ScheduledRetry {
  /** The attempt; its slot is freed once what it returns settled. */
  run(): void | Promise<void>;
  /** The engine stopped before the attempt: finish the call's outcome without it. */
  cancel(): void;
}

/**
 * The retries of one engine, waiting on timers in the background so that neither the
 * partition nor the other handlers wait for them. At most `maxPending` are taken at once,
 * from `schedule()` until their attempt settled: a flood of failures cannot pile up timers,
 * calls and retained records without bound; `schedule()` then answers false and the caller
 * gives up on that call at once.
 */
export class RetryScheduler {
  private readonly waiting = new Map<NodeJS.Timeout, { retry: ScheduledRetry; end: () => void }>();
  private running = 0;
  private stopped = false;

  constructor(
    private readonly maxPending: number,
    /** Counts each retry from schedule() until its attempt settled or it was cancelled. */
    private readonly background = new BackgroundWork(),
  ) {}

  /** Retries waiting for their time or running now. */
  get pending(): number {
    return this.waiting.size + this.running;
  }

  /** Takes a retry to run after `delayMs`; false when the bound is reached or after stop(). */
  schedule(delayMs: number, retry: ScheduledRetry): boolean {
    if (this.stopped || this.pending >= this.maxPending) return false;
    const end = this.background.begin();
    const timer = setTimeout(() => {
      this.waiting.delete(timer);
      this.running++;
      const release = () => {
        this.running--;
        end();
      };
      let result: void | Promise<void> = undefined;
      try {
        result = retry.run();
      } catch {
        // run() contains its own failures; a throw here only must not keep the slot.
      }
      if (result) void result.then(release, release);
      else release();
    }, delayMs);
    // A waiting retry must not keep a process alive that is otherwise done.
    timer.unref?.();
    this.waiting.set(timer, { retry, end });
    return true;
  }

  /** Cancels every waiting retry (each told through cancel()) and takes no new one. */
  stop(): void {
    this.stopped = true;
    const cancelled = [...this.waiting];
    this.waiting.clear();
    for (const [timer, { retry, end }] of cancelled) {
      clearTimeout(timer);
      try {
        retry.cancel();
      } catch {
        // cancel() contains its own failures.
      }
      end();
    }
  }
}
