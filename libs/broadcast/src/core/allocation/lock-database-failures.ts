import { BroadcastMessages } from '../../errors/broadcast.messages.js';
import { BroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';

/** Lock queries that failed in a row: one warning, then one error naming lock.dataSource. */
export class LockDatabaseFailures {
  private attempts = 0;
  private last = '';

  constructor(
    private readonly logger: BroadcastLogger,
    private readonly started: number,
  ) {}

  get failing(): boolean {
    return this.attempts > 0;
  }

  failed(message: string): void {
    if (this.attempts++ === 0)
      this.logger.warn(
        `${BroadcastMessages.lockQueryFailed(message)} Retrying until startupTimeoutMs.`,
      );
    this.last = message;
  }

  answered(): void {
    this.attempts = 0;
  }

  error(): BroadcastStartupError {
    return new BroadcastStartupError(
      'lock.dataSource',
      BroadcastMessages.lockDatabaseUnreachable(
        this.attempts,
        Date.now() - this.started,
        this.last,
      ),
    );
  }
}
