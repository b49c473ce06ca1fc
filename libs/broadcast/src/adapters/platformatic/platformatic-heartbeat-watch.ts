import { channel } from 'node:diagnostics_channel';
import { errorMessage } from '../../shared/async.utils.js';

/**
 * Published as each heartbeat attempt begins, before its coordinator is looked up
 * (@platformatic/kafka's tracing channel 'plt:kafka:consumer:heartbeat', diagnostic.js).
 */
const ATTEMPT_BEGINS = channel('tracing:plt:kafka:consumer:heartbeat:start');

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
 *
 * An attempt counts from when it begins, not only from the client's `consumer:heartbeat:start`,
 * which comes once the coordinator answered: while the broker is away (2.12.1 retries every
 * interval, each attempt failing after its FindCoordinator retries) none came, so the watch gave
 * the member up 3 s into any outage, and the engine's new member then waited out the old one's
 * session after the broker returned.
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

  /** Counts every heartbeat attempt of `client` as begun; returns the unsubscribe. */
  follow(client: object): () => void {
    const onAttempt = (context: unknown) => {
      if ((context as { client?: unknown } | undefined)?.client === client) this.began();
    };
    ATTEMPT_BEGINS.subscribe(onAttempt);
    return () => ATTEMPT_BEGINS.unsubscribe(onAttempt);
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
