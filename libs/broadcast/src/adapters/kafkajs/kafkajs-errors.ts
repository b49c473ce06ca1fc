import { BroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import type { BroadcastKafkaOptions } from '../../interfaces/broadcast-kafka-options.interface.js';
import type { DeleteGroupOutcome } from '../../interfaces/kafka-port.interface.js';
import type { KafkaOperation } from '../shared/adapter-types.js';
import type { AttemptNote, ClientErrors } from '../shared/client-errors.js';
import { chain, isBrokenConnection, rootMessage } from './kafkajs-error-chain.js';
import { clean, refusalOf, TLS_FAILURE } from './kafkajs-startup-errors.js';

const UNREACHABLE =
  /ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|ECONNRESET|Connection timeout|Connection error|Failed to connect|Connection closed|Closed connection|seed broker|Not connected/i;
/**
 * A connection kafkajs logs as failed that says no broker is there at all: heard while kafkajs
 * still retries, it is reported at once. A reset or a closed connection is not (a broker that
 * refuses a login closes the connection too), nor kafkajs's own "Connection timeout" (its 1 s
 * covers TLS and SASL too, which a busy host can outlast before a refusal).
 */
const NO_BROKER = /ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN/i;
/** The broker's answers to a DeleteGroups that are outcomes, not failures. */
const DELETE_ANSWERS: Record<number, Exclude<DeleteGroupOutcome, 'deleted'>> = {
  68: 'non-empty', // NON_EMPTY_GROUP
  69: 'not-found', // GROUP_ID_NOT_FOUND
};

/**
 * Reads kafkajs's errors (the ClientErrors of adapters/shared/client-errors.ts): login, TLS and
 * ACL failures become one BroadcastStartupError naming the option or ACL to check; an unreachable
 * broker is transient (retried until startupTimeoutMs by adapters/shared/until-reachable.ts).
 * The password never enters a message.
 */
export class KafkajsErrors implements ClientErrors {
  /** Who hears the connection failures kafkajs logs while it retries (see watchAttempt). */
  private readonly watchers = new Set<(note: AttemptNote) => void>();

  constructor(
    private readonly kafka: BroadcastKafkaOptions,
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

  fatal(error: unknown, during?: KafkaOperation): BroadcastStartupError | undefined {
    for (const e of chain(error)) {
      if (e instanceof BroadcastStartupError) return e;
      const refusal = refusalOf(e, this.kafka, during);
      if (refusal) return refusal;
    }
    return undefined;
  }

  /**
   * Fed by kafkajs-log.ts with every connection error kafkajs logs: kafkajs's own retries hide
   * them until they end (a connect to a dead broker is retried for about 9 s), so the start's
   * watcher hears at once a broker that is not there, and a TLS failure with TLS on, which ends
   * the attempt. Anything else (a connection a refused login closed) is left to the attempt's own
   * error.
   */
  noteConnectionError(message: string): void {
    const tls = this.kafka.ssl !== undefined && TLS_FAILURE.test(message);
    if (!tls && !NO_BROKER.test(message)) return;
    const fatal = tls
      ? this.fatal(Object.assign(new Error(message), { name: 'KafkaJSConnectionError' }))
      : undefined;
    for (const watcher of this.watchers) watcher({ message: clean(message), fatal });
  }

  watchAttempt(listener: (note: AttemptNote) => void): () => void {
    this.watchers.add(listener);
    return () => void this.watchers.delete(listener);
  }

  /** True when the brokers could not be reached at all (retry until the startup deadline). */
  unreachable(error: unknown): boolean {
    return [...chain(error)].some(
      (e) =>
        e.name === 'KafkaJSConnectionError' ||
        UNREACHABLE.test(`${e.code ?? ''} ${e.message ?? ''}`),
    );
  }

  transient(error: unknown): boolean {
    return (
      this.unreachable(error) ||
      isBrokenConnection(error) ||
      [...chain(error)].some((e) => (e as { retriable?: boolean }).retriable === true)
    );
  }

  rootMessage(error: unknown): string {
    return clean(rootMessage(error));
  }

  deleteAnswer(
    error: unknown,
    groupId: string,
  ): Exclude<DeleteGroupOutcome, 'deleted'> | undefined {
    const groups = (error as { groups?: { groupId: string; errorCode: number }[] } | undefined)
      ?.groups;
    const code = groups?.find((g) => g.groupId === groupId)?.errorCode;
    return code === undefined ? undefined : DELETE_ANSWERS[code];
  }
}
