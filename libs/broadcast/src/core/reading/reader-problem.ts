import { isBroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import { backoffDelay } from '../../shared/async.utils.js';
import type { Claim } from './broadcast-reader.types.js';
import { claimFields } from './reader-phase.js';

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

  /**
   * A rejoin is due after `cause` (attempt 0: the consumer crashed; later: attempt − 1 failed):
   * logs it (a problem once, see note) and returns the pause before the attempt.
   */
  rejoinAfter(claim: Claim, cause: Error, attempt: number): number {
    const startup = isBroadcastStartupError(cause);
    if (startup) this.note(cause);
    else if (attempt === 0)
      this.logger.warn(
        `Broadcast consumer of ${claim.groupId} stopped (${cause.message}); rejoining`,
        claimFields(claim, cause.message),
      );
    else
      this.logger.warn(
        `Rejoining ${claim.groupId} failed: ${cause.message}`,
        claimFields(claim, cause.message),
      );
    if (attempt > 0) return this.rejoinPause(attempt - 1);
    return startup ? this.crashPause() : 0;
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
