import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import { backoffDelay } from '../../shared/async.utils.js';

/**
 * A failure retrying cannot fix (a missing ACL, BroadcastStartupError) fails every attempt
 * alike, and a join can look ready just before the first fetch is refused. So the reader logs
 * it once, shows it in status() until messages arrive again (the ACL was granted), and retries
 * with a growing pause instead of a warning per cycle.
 */
export class ReaderProblem {
  private message: string | undefined;
  /** Crashes in a row with the problem, and how many messages had arrived at the last one. */
  private streak = 0;
  private mark = 0;

  constructor(
    private readonly logger: BroadcastLogger,
    /** Messages received so far (the dispatcher's count). */
    private readonly received: () => number,
  ) {}

  /** Logs `error` unless it is the problem shown already, and counts one more failure. */
  note(error: Error): void {
    if (this.current() !== error.message)
      this.logger.error(error.message, undefined, { reason: error.message });
    this.message = error.message;
    this.streak++;
    this.mark = this.received();
  }

  /** The problem, until messages arrive again (the ACL was granted). */
  current(): string | undefined {
    if (this.message !== undefined && this.received() > this.mark) {
      this.message = undefined;
      this.streak = 0;
    }
    return this.message;
  }

  /** The pause after a crash with the problem: longer the more crashes in a row. */
  crashPause(): number {
    return backoffDelay(this.streak, 1_000, 30_000);
  }

  /** The pause after failed rejoin attempt `attempt`: up to 30 s while the problem lasts. */
  rejoinPause(attempt: number): number {
    const cap = this.current() === undefined ? 5_000 : 30_000;
    return backoffDelay(attempt, 500, cap);
  }
}
