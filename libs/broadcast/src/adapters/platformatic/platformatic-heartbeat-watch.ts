import { errorMessage } from '../../shared/async.utils.js';

/**
 * Notices a classic group member whose heartbeats stopped for good after a failed one.
 *
 * A heartbeat that fails on something other than a group error (a closed connection: the broker
 * restarted) makes @platformatic/kafka 1.35's classic consumer cancel its heartbeat timer and then
 * refresh the cancelled one (clients/consumer/consumer.js:712, 731), so no heartbeat follows. Its
 * fetches recover, so the instance would read on while its membership expires and its group goes
 * empty, for the roster to miss and another instance to take. When no heartbeat began within
 * three intervals of a failure (a client that does retry starts one within one interval),
 * `stopped` is called once, and the consumer reports itself crashed so that the engine rejoins.
 */
export class HeartbeatWatch {
  private beganAt = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly groupId: string,
    private readonly heartbeatIntervalMs: number,
    private readonly stopped: (error: Error) => void,
  ) {}

  /** A heartbeat began (the client's `consumer:heartbeat:start`). */
  began(): void {
    this.beganAt = Date.now();
  }

  /** A heartbeat failed without a rejoin (the client's `consumer:heartbeat:error`). */
  failed(error: unknown): void {
    if (this.timer) return;
    const failedAt = Date.now();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.beganAt > failedAt) return;
      this.stopped(
        new Error(`Heartbeats of ${this.groupId} stopped after a failure: ${errorMessage(error)}`),
      );
    }, 3 * this.heartbeatIntervalMs);
  }

  /** The consumer stops or crashed: nothing more to watch. */
  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
