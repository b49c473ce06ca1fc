import { BroadcastMessages } from '../../errors/broadcast.messages.js';
import { BroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import type { BroadcastKafkaOptions } from '../../interfaces/broadcast-kafka-options.interface.js';
import type { DeleteGroupOutcome } from '../../interfaces/kafka-port.interface.js';
import { errorMessage } from '../../shared/async.utils.js';
import type { KafkaOperation } from '../shared/adapter-types.js';
import { brokerList, type AttemptNote, type ClientErrors } from '../shared/client-errors.js';

/** librdkafka's error codes the adapter reads (negative: the client's own, positive: the broker's). */
export const RD = {
  DESTROY: -197,
  TRANSPORT: -195,
  RESOLVE: -193,
  PARTITION_EOF: -191,
  PURGE_QUEUE: -152,
  FATAL: -150,
  ALL_BROKERS_DOWN: -187,
  TIMED_OUT: -185,
  SSL: -181,
  STATE: -172,
  AUTHENTICATION: -169,
  AUTO_OFFSET_RESET: -140,
  ASSIGN_PARTITIONS: -175,
  REVOKE_PARTITIONS: -174,
  UNKNOWN_TOPIC_OR_PART: 3,
  LEADER_NOT_AVAILABLE: 5,
  NOT_LEADER: 6,
  REQUEST_TIMED_OUT: 7,
  COORDINATOR_LOADING: 14,
  COORDINATOR_NOT_AVAILABLE: 15,
  NOT_COORDINATOR: 16,
  TOPIC_AUTHORIZATION_FAILED: 29,
  GROUP_AUTHORIZATION_FAILED: 30,
  CLUSTER_AUTHORIZATION_FAILED: 31,
  UNSUPPORTED_VERSION: 35,
  TOPIC_ALREADY_EXISTS: 36,
  SASL_AUTHENTICATION_FAILED: 58,
  NON_EMPTY_GROUP: 68,
  GROUP_ID_NOT_FOUND: 69,
} as const;

/** The fields of a LibrdKafkaError the adapter reads. */
interface RdErrorLike {
  code?: unknown;
  message?: unknown;
  isRetriable?: unknown;
  cause?: unknown;
}

/** The librdkafka error code somewhere in the error's cause chain, if any. */
export function rdCode(error: unknown): number | undefined {
  for (let e = error as RdErrorLike | undefined, depth = 0; e && depth < 5; depth++) {
    if (typeof e.code === 'number') return e.code;
    e = e.cause as RdErrorLike | undefined;
  }
  return undefined;
}

/** The broker's authorization refusals, as librdkafka words them. */
const REFUSED_IN_WORDS: [RegExp, number][] = [
  [/cluster authorization failed/i, RD.CLUSTER_AUTHORIZATION_FAILED],
  [/topic authorization failed/i, RD.TOPIC_AUTHORIZATION_FAILED],
  [/group authorization failed/i, RD.GROUP_AUTHORIZATION_FAILED],
];

/**
 * An authorization refusal a client's error event reported, as an error with the broker's code.
 * The binding's error events lose the code (-1, `Broker: Cluster authorization failed` in
 * words): the idempotent producer's refused InitProducerId (no WRITE on any topic) arrives so,
 * and its queued records then fail with `Local: Purged in queue`, which names nothing.
 */
export function refusalOf(error: unknown): (Error & { code: number }) | undefined {
  const words = `${(error as RdErrorLike | undefined)?.message ?? ''} ${(error as Error | undefined)?.stack ?? ''}`;
  const code = REFUSED_IN_WORDS.find(([pattern]) => pattern.test(words))?.[1];
  return code === undefined ? undefined : Object.assign(new Error(errorMessage(error)), { code });
}

const DENIED: Partial<Record<number, 'topic' | 'group' | 'cluster'>> = {
  [RD.TOPIC_AUTHORIZATION_FAILED]: 'topic',
  [RD.GROUP_AUTHORIZATION_FAILED]: 'group',
  [RD.CLUSTER_AUTHORIZATION_FAILED]: 'cluster',
};
const TRANSIENT = new Set<number>([
  RD.TRANSPORT,
  RD.RESOLVE,
  RD.ALL_BROKERS_DOWN,
  RD.TIMED_OUT,
  RD.STATE,
  RD.UNKNOWN_TOPIC_OR_PART,
  RD.LEADER_NOT_AVAILABLE,
  RD.NOT_LEADER,
  RD.REQUEST_TIMED_OUT,
  RD.COORDINATOR_LOADING,
  RD.COORDINATOR_NOT_AVAILABLE,
  RD.NOT_COORDINATOR,
]);

/** librdkafka's words for a connection that failed before any request: no broker there. */
const NO_BROKER =
  /Connect to .* failed|Connection refused|Failed to resolve|Connection setup timed out/i;
const LOGIN_REFUSED = /SASL authentication error|Authentication failed/i;
/**
 * librdkafka's error event when the token refresh callback failed (the user's provider): not a
 * refusal of the broker's, and the client keeps the token it has (and asks again 10 s later); the
 * start hears the provider's own error (noteToken).
 */
const NO_NEW_TOKEN = /Failed to acquire SASL OAUTHBEARER token/i;
const TLS_FAILED = /SSL handshake failed|certificate verify failed|SSL routines/i;

/** One of librdkafka's log lines without its thread, its broker and its state suffix. */
function logWords(message: string): string {
  return message
    .replace(/^\[thrd:[^\]]*\]: /, '')
    .replace(/^\S+?\/(?:bootstrap|-?\d+): /, '')
    .replace(/\s*\(after \d+ms in state \w+(?:, \d+ identical error\(s\) suppressed)?\)/g, '')
    .trim();
}

/**
 * Reads @confluentinc/kafka-javascript's errors (LibrdKafkaError: a numeric librdkafka `code`),
 * the ClientErrors of adapters/shared/client-errors.ts: a refused login, a TLS failure or a
 * missing ACL becomes one BroadcastStartupError naming the option or ACL to check; an unreachable
 * broker is transient (retried until startupTimeoutMs). The password never enters a message.
 */
export class ConfluentErrors implements ClientErrors {
  /** Who hears the connection failures librdkafka logs (see noteClientLog). */
  private readonly watchers = new Set<(note: AttemptNote) => void>();
  /** The OAUTHBEARER token provider's failure, until it gives a token again (see noteToken). */
  private tokenFailure: BroadcastStartupError | undefined;

  constructor(private readonly kafka: BroadcastKafkaOptions) {}

  /**
   * Fed with the admin client's error log lines. librdkafka keeps retrying a failed connection
   * (refused, a refused login, a TLS failure) by itself, and the request waiting on it just times
   * out ('Local: Timed out' after the admin's 5 s, past a short startupTimeoutMs); its error
   * events name only the code ('broker transport failure', code -1 in the binding), its log line
   * the cause. So the start's watcher hears at once a broker that is not there, and a refused
   * login or (with TLS on) a TLS failure ends the attempt with its BroadcastStartupError.
   */
  noteClientLog(log: { severity?: number; message?: string }): void {
    if (this.watchers.size === 0 || (log.severity ?? 7) > 3) return;
    const words = logWords(log.message ?? '');
    const login = this.kafka.sasl !== undefined && LOGIN_REFUSED.test(words);
    const tls = this.kafka.ssl !== undefined && TLS_FAILED.test(words);
    if (!login && !tls && !NO_BROKER.test(words)) return;
    const code = login ? RD.AUTHENTICATION : tls ? RD.SSL : undefined;
    const fatal = code && this.fatal(Object.assign(new Error(words), { code }));
    for (const watcher of this.watchers) watcher({ message: words, fatal: fatal || undefined });
  }

  /**
   * Fed with each answer of the OAUTHBEARER token provider (confluent-oauth-tokens.ts): its
   * failure, or undefined for a token. librdkafka asks for a token when a client is made, before
   * any start may watch, and without one it connects nowhere: its requests would only time out.
   * So a failure ends the attempt under way, and every attempt started before the provider gives
   * a token again.
   */
  noteToken(failure: BroadcastStartupError | undefined): void {
    this.tokenFailure = failure;
    if (failure)
      for (const watcher of this.watchers) watcher({ message: failure.message, fatal: failure });
  }

  watchAttempt(listener: (note: AttemptNote) => void): () => void {
    this.watchers.add(listener);
    const failure = this.tokenFailure;
    if (failure)
      queueMicrotask(() => {
        if (this.watchers.has(listener)) listener({ message: failure.message, fatal: failure });
      });
    return () => void this.watchers.delete(listener);
  }

  fatal(error: unknown, during?: KafkaOperation): BroadcastStartupError | undefined {
    if (error instanceof BroadcastStartupError) return error;
    const code = rdCode(error);
    const message = this.rootMessage(error);
    if (code === RD.AUTHENTICATION && NO_NEW_TOKEN.test(message)) return undefined;
    if (code === RD.SASL_AUTHENTICATION_FAILED || code === RD.AUTHENTICATION)
      return new BroadcastStartupError(
        'kafka.sasl',
        BroadcastMessages.kafkaSaslRefused(
          this.kafka.sasl,
          this.brokers(),
          message.replace(/\.+$/, ''),
        ),
      );
    if (code === RD.SSL && this.kafka.ssl !== undefined)
      return new BroadcastStartupError(
        'kafka.ssl',
        BroadcastMessages.kafkaTlsFailed(this.brokers(), message),
      );
    const denied = code === undefined ? undefined : DENIED[code];
    // A cluster denial of an operation that needs only topic ACLs (the idempotent producer's
    // InitProducerId, which WRITE on a topic allows) is the topic's.
    const resourceType =
      denied === 'cluster' && !during?.acl.cluster && during?.acl.topic ? 'topic' : denied;
    if (!resourceType) return undefined;
    const resource =
      resourceType === 'group'
        ? (during?.groupId ?? 'the consumer group')
        : resourceType === 'cluster'
          ? 'kafka-cluster'
          : (during?.topics?.join(', ') ?? 'the broadcast topics');
    return BroadcastStartupError.missingAcl(
      during?.operation ?? 'an operation',
      resourceType,
      resource,
      during?.acl[resourceType] ?? 'the needed',
    );
  }

  /** librdkafka finds the coordinator itself and reports a refused lookup with its own code. */
  async fatalForGroup(
    error: unknown,
    during: KafkaOperation & { groupId: string },
  ): Promise<BroadcastStartupError | undefined> {
    return this.fatal(error, during);
  }

  transient(error: unknown): boolean {
    if (this.fatal(error)) return false;
    const code = rdCode(error);
    if (code !== undefined && TRANSIENT.has(code)) return true;
    if (code === RD.AUTHENTICATION && NO_NEW_TOKEN.test(this.rootMessage(error))) return true;
    return (error as RdErrorLike | undefined)?.isRetriable === true;
  }

  rootMessage(error: unknown): string {
    let message = errorMessage(error);
    for (let e = error as RdErrorLike | undefined, depth = 0; e && depth < 5; depth++) {
      if (typeof e.message === 'string' && e.message) message = e.message;
      e = e.cause as RdErrorLike | undefined;
    }
    return message;
  }

  deleteAnswer(error: unknown): Exclude<DeleteGroupOutcome, 'deleted'> | undefined {
    const code = rdCode(error);
    if (code === RD.NON_EMPTY_GROUP) return 'non-empty';
    if (code === RD.GROUP_ID_NOT_FOUND) return 'not-found';
    return undefined;
  }

  private brokers(): string {
    return brokerList(this.kafka.brokers);
  }
}
