import { BroadcastMessages } from '../../errors/broadcast.messages.js';
import { BroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import type { BroadcastKafkaOptions } from '../../interfaces/broadcast-kafka-options.interface.js';
import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import { backoffDelay, pause } from '../../shared/async.utils.js';
import type { KafkaOperation } from './adapter-types.js';
import { brokerList, type AttemptNote, type ClientErrors } from './client-errors.js';

/** Rejection of an attempt still pending at the startup deadline. */
class OutOfTime extends Error {
  constructor() {
    super('no answer before startupTimeoutMs');
  }
}

export interface UntilReachableOptions {
  kafka: BroadcastKafkaOptions;
  /** How long startup retries an unreachable broker. */
  startupTimeoutMs: number;
  logger: BroadcastLogger;
  /** The pause between attempts: exponential from `baseMs`, capped at `capMs`, jittered. */
  backoff: { baseMs: number; capMs: number };
}

/**
 * The first call of every start (the topic check), retried while the brokers cannot be reached:
 * until startupTimeoutMs has passed, then reported once as a BroadcastStartupError naming
 * kafka.brokers; a refusal (login, TLS, ACL) is thrown at once. The first failure is logged at
 * once as one warning (the brokers, the cause, that it keeps trying and until when), so a dead
 * broker is named within seconds, not at the deadline; later failures stay quiet. An attempt still
 * pending at the deadline is abandoned, so the error comes in time. One per port: concurrent
 * calls share the warning.
 */
export class UntilReachable {
  /** When the current run of failures was reported (reset by a success). */
  private warned = false;

  constructor(
    private readonly errors: ClientErrors,
    private readonly o: UntilReachableOptions,
  ) {}

  async run<T>(
    attempt: () => Promise<T>,
    during: KafkaOperation,
    signal?: AbortSignal,
  ): Promise<T> {
    const started = Date.now();
    const deadline = started + this.o.startupTimeoutMs;
    /** The cause of the latest failed attempt, for the error should the caller's deadline end it. */
    let lastCause: string | undefined;
    for (let attempts = 1; ; attempts++) {
      let noted: string | undefined;
      let failure: unknown;
      try {
        const result = await this.attempt(attempt, deadline, (note) => {
          noted = note.message;
          this.warn(note.message, deadline);
        });
        this.warned = false;
        return result;
      } catch (error) {
        failure = error;
      }
      const outOfTime = failure instanceof OutOfTime;
      const unreachable = outOfTime || this.errors.transient(failure);
      // The caller's own deadline (its signal) may end the wait a moment before ours: a broker
      // that was not reached is still named as such, never as the bare abort or timer.
      if (signal?.aborted) {
        const cause =
          noted ??
          lastCause ??
          (outOfTime ? 'no answer' : unreachable ? this.errors.rootMessage(failure) : undefined);
        if (cause !== undefined) throw this.outOfTime(attempts, started, cause);
        throw failure;
      }
      const fatal =
        failure instanceof BroadcastStartupError ? failure : this.errors.fatal(failure, during);
      if (fatal) throw fatal;
      if (!unreachable) throw failure;
      const cause =
        noted ?? (outOfTime ? (lastCause ?? 'no answer') : this.errors.rootMessage(failure));
      lastCause = cause;
      this.warn(cause, deadline);
      const wait = backoffDelay(attempts, this.o.backoff.baseMs, this.o.backoff.capMs);
      if (outOfTime || Date.now() + wait >= deadline)
        throw this.outOfTime(attempts, started, cause);
      await pause(wait, signal);
      if (signal?.aborted) throw this.outOfTime(attempts, started, cause);
    }
  }

  /** The one error of an unreachable broker: kafka.brokers, the cause, how long it was tried. */
  private outOfTime(attempts: number, started: number, cause: string): BroadcastStartupError {
    return new BroadcastStartupError(
      'kafka.brokers',
      BroadcastMessages.kafkaUnreachable(
        brokerList(this.o.kafka.brokers),
        attempts,
        Date.now() - started,
        cause,
      ),
    );
  }

  /** Once per run of failures: the brokers, the cause, and until when it keeps trying. */
  private warn(cause: string, deadline: number): void {
    if (this.warned) return;
    this.warned = true;
    const brokers = brokerList(this.o.kafka.brokers);
    const until = new Date(deadline).toISOString();
    this.o.logger.warn(BroadcastMessages.kafkaUnreachableRetrying(brokers, cause, until), {
      brokers,
      reason: cause,
      until,
    });
  }

  /**
   * `attempt()`, unless the deadline passes first (OutOfTime) or the client reports a failure it
   * would go on retrying that retrying cannot fix. The abandoned attempt is left to fail on its
   * own (an attempt ends by itself when its signal aborts).
   */
  private attempt<T>(
    attempt: () => Promise<T>,
    deadline: number,
    onNote: (note: AttemptNote) => void,
  ): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    let unwatch: (() => void) | undefined;
    return new Promise<T>((resolve, reject) => {
      timer = setTimeout(() => reject(new OutOfTime()), Math.max(0, deadline - Date.now()));
      unwatch = this.errors.watchAttempt?.((note) =>
        note.fatal ? reject(note.fatal) : onNote(note),
      );
      const running = (async () => attempt())();
      running.catch(() => undefined);
      running.then(resolve, reject);
    }).finally(() => {
      clearTimeout(timer);
      unwatch?.();
    });
  }
}
