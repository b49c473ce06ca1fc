/**
 * Counts work an engine runs in the background, outside any read: retries waiting for their
 * backoff or running, `onHandlerError` calls and dead-letter sends. Reading never waits for it;
 * the testing helper does, so a test sees a handler's final outcome once `publish()` resolved.
 */
export class BackgroundWork {
  private count = 0;
  private readonly listeners: (() => void)[] = [];

  /** Nothing under way. */
  get idle(): boolean {
    return this.count === 0;
  }

  /** One piece of work began; call what it returns (once) when it ended. */
  begin(): () => void {
    this.count++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--this.count === 0) for (const listener of this.listeners) listener();
    };
  }

  /** Counts `work` until it settles. */
  track(work: Promise<unknown>): void {
    const end = this.begin();
    void work.then(end, end);
  }

  /** Calls `listener` each time the last piece of work under way ended. */
  onIdle(listener: () => void): void {
    this.listeners.push(listener);
  }
}
