import type { BroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import type { DeleteGroupOutcome } from '../../interfaces/kafka-port.interface.js';
import type { KafkaOperation } from './adapter-types.js';

/** A failure the client reported while it still retries an attempt itself. */
export interface AttemptNote {
  /** The cause, in the broker's or Node's words. */
  message: string;
  /** Set when retrying cannot fix it (a TLS failure with TLS on): the attempt ends now. */
  fatal?: BroadcastStartupError;
}

/**
 * How an adapter reads its client's errors: one class per client, `<Client>Errors` in
 * adapters/<client>/<client>-errors.ts, with these methods. The shared retry loops
 * (until-reachable.ts, group-delete.ts) and the group consumer lifecycle decide with it; the
 * password never enters a message.
 */
export interface ClientErrors {
  /**
   * A BroadcastStartupError for a failure that retrying cannot fix (a refused login, a TLS
   * failure with TLS on, a missing ACL), naming the option or ACL to check; undefined otherwise.
   */
  fatal(error: unknown, during?: KafkaOperation): BroadcastStartupError | undefined;
  /** `fatal()` for a group call, plus what the client hides of a refused group lookup. */
  fatalForGroup(
    error: unknown,
    during: KafkaOperation & { groupId: string },
  ): Promise<BroadcastStartupError | undefined>;
  /** Worth another attempt: the broker unreachable, a broken connection, a retriable answer. */
  transient(error: unknown): boolean;
  /** The innermost cause, in the broker's or Node's words (the client's wrappers dropped). */
  rootMessage(error: unknown): string;
  /** The broker's answer to a DeleteGroups that this error carries, if any. */
  deleteAnswer(error: unknown, groupId: string): Exclude<DeleteGroupOutcome, 'deleted'> | undefined;
  /**
   * Hears the failures the client reports while it retries an attempt by itself (kafkajs logs
   * each failed connection, its retries hide them until they end); returns the unsubscribe.
   * Optional: a client that reports each failure to its caller needs none.
   */
  watchAttempt?(listener: (note: AttemptNote) => void): () => void;
}

/** The brokers as a message names them (a function given as kafka.brokers cannot be listed). */
export function brokerList(brokers: readonly string[] | (() => unknown)): string {
  return typeof brokers === 'function' ? 'the brokers from kafka.brokers()' : brokers.join(',');
}
