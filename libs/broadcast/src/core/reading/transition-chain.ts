import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import { errorMessage } from '../../shared/async.utils.js';

/**
 * The reader's transitions (allocate, rejoin, move away, stop), run one at a time in the order
 * they were asked for: two at once could claim two groups or release a group still in use.
 */
export class TransitionChain {
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly logger: BroadcastLogger) {}

  /** Settles once every transition asked for so far has. */
  get settled(): Promise<void> {
    return this.tail;
  }

  /** Runs `transition` after the ones before it; a failure is logged and the chain goes on. */
  schedule(transition: () => Promise<void>): void {
    this.tail = this.tail.then(transition).catch((error: unknown) => {
      this.logger.error(`Broadcast reader transition failed: ${errorMessage(error)}`, undefined, {
        reason: errorMessage(error),
      });
    });
  }

  /**
   * Startup, the first transition: later ones wait for it whatever its outcome, which the
   * caller handles itself.
   */
  begin(startup: Promise<void>): void {
    this.tail = startup.then(
      () => undefined,
      () => undefined,
    );
  }

  /** The last transition (stop): runs after the others; its failure goes to the caller. */
  finish(transition: () => Promise<void>): Promise<void> {
    this.tail = this.tail.then(transition);
    return this.tail;
  }
}
