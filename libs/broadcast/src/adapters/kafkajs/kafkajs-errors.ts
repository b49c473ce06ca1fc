import { BroadcastMessages } from '../../errors/broadcast.messages.js';
import { BroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import type { BroadcastKafkaOptions } from '../../interfaces/broadcast-kafka-options.interface.js';
import { backoffDelay, pause } from '../../shared/async.utils.js';
import { chain, isBrokenConnection, rootMessage } from './kafkajs-error-chain.js';
import { brokerList, clean, refusalOf, TLS_FAILURE } from './kafkajs-startup-errors.js';
import type { KafkaOperation } from '../shared/adapter-types.js';

/** Rejection of an attempt still pending at the startup deadline. */
const OUT_OF_TIME = new Error('no answer before startupTimeoutMs');

const UNREACHABLE =
  /ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|ECONNRESET|Connection timeout|Connection error|Failed to connect|Connection closed|Closed connection|seed broker|Not connected/i;

/**
 * Turns kafkajs's errors into the library's: login, TLS and ACL failures become one
 * BroadcastStartupError naming the option or ACL to check; an unreachable broker is retried
 * until startupTimeoutMs and then reported the same way. The password never enters a message.
 */
export class KafkajsErrorClassifier {
  /** The last connection failure kafkajs logged (its own retries hide it until they end). */
  private lastConnectionError: string | undefined;
  /** A TLS failure seen while kafkajs still retries: retrying cannot fix it. */
  private tlsFailure: string | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly kafka: BroadcastKafkaOptions,
    private readonly startupTimeoutMs: number,
    /** The broker's FindCoordinator error for a group (see kafkajs-coordinator-probe.ts). */
    private readonly coordinatorError?: (groupId: string) => Promise<string | undefined>,
  ) {}

  /**
   * `fatal()`, plus the one case kafkajs hides: a group the principal has no ACL on at all
   * looks like a missing coordinator ("Failed to find group coordinator").
   */
  async fatalForGroup(
    error: unknown,
    during: KafkaOperation & { groupId: string },
  ): Promise<BroadcastStartupError | undefined> {
    const fatal = this.fatal(error, during);
    if (fatal || !this.coordinatorError) return fatal;
    if (![...chain(error)].some((e) => e.name === 'KafkaJSGroupCoordinatorNotFound')) return;
    if ((await this.coordinatorError(during.groupId)) !== 'GROUP_AUTHORIZATION_FAILED') return;
    // DESCRIBE is what the broker checked; READ or DELETE (both in the README's list) imply it.
    return BroadcastStartupError.missingAcl(
      `${during.operation} (finding its coordinator)`,
      'group',
      during.groupId,
      'DESCRIBE',
    );
  }

  /** A BroadcastStartupError for failures that retrying cannot fix; undefined otherwise. */
  fatal(error: unknown, during?: KafkaOperation): BroadcastStartupError | undefined {
    for (const e of chain(error)) {
      if (e instanceof BroadcastStartupError) return e;
      const refusal = refusalOf(e, this.kafka, during);
      if (refusal) return refusal;
    }
    return undefined;
  }

  /** Fed by kafkajs-log.ts with every connection error kafkajs logs. */
  noteConnectionError(message: string): void {
    this.lastConnectionError = message;
    if (this.kafka.ssl !== undefined && TLS_FAILURE.test(message)) {
      this.tlsFailure = message;
      this.wake?.();
    }
  }

  /** True when the brokers could not be reached at all (retry until the startup deadline). */
  unreachable(error: unknown): boolean {
    return [...chain(error)].some(
      (e) =>
        e.name === 'KafkaJSConnectionError' ||
        UNREACHABLE.test(`${e.code ?? ''} ${e.message ?? ''}`),
    );
  }

  /** Worth another attempt: unreachable, a broken client, or an error kafkajs calls retriable. */
  transient(error: unknown): boolean {
    return (
      this.unreachable(error) ||
      isBrokenConnection(error) ||
      [...chain(error)].some((e) => (e as { retriable?: boolean }).retriable === true)
    );
  }

  /**
   * Runs `attempt` until it succeeds. Unreachable brokers are retried until startupTimeoutMs
   * has passed, then reported once naming kafka.brokers; fatal failures are thrown at once.
   * An attempt still pending at the deadline is abandoned, so the error arrives in time.
   */
  async untilReachable<T>(
    attempt: () => Promise<T>,
    during: KafkaOperation,
    signal?: AbortSignal,
  ): Promise<T> {
    const started = Date.now();
    const deadline = started + this.startupTimeoutMs;
    for (let attempts = 1; ; attempts++) {
      this.tlsFailure = undefined;
      let failure: unknown;
      try {
        return await this.raceDeadline(attempt(), deadline);
      } catch (error) {
        failure = error;
      }
      if (signal?.aborted) throw failure;
      const fatal = this.fatal(failure, during);
      if (fatal) throw fatal;
      if (failure !== OUT_OF_TIME && !this.transient(failure)) throw failure;
      const wait = backoffDelay(attempts, 500, 5_000);
      if (failure === OUT_OF_TIME || Date.now() + wait >= deadline) {
        const cause =
          failure === OUT_OF_TIME
            ? (this.lastConnectionError ?? 'no answer')
            : (this.lastConnectionError ?? rootMessage(failure));
        throw new BroadcastStartupError(
          'kafka.brokers',
          BroadcastMessages.kafkaUnreachable(
            brokerList(this.kafka),
            attempts,
            Date.now() - started,
            clean(cause),
          ),
        );
      }
      await pause(wait, signal);
      signal?.throwIfAborted();
    }
  }

  /**
   * `running`, unless the deadline passes first (OUT_OF_TIME) or kafkajs logs a TLS failure
   * it would go on retrying. The abandoned attempt is left to fail on its own.
   */
  private raceDeadline<T>(running: Promise<T>, deadline: number): Promise<T> {
    running.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    return new Promise<T>((resolve, reject) => {
      timer = setTimeout(() => reject(OUT_OF_TIME), Math.max(0, deadline - Date.now()));
      this.wake = () => reject(new Error(this.tlsFailure));
      running.then(resolve, reject);
    }).finally(() => {
      clearTimeout(timer);
      this.wake = undefined;
    });
  }
}
