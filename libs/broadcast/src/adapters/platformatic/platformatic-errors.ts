import { BroadcastMessages } from '../../errors/broadcast.messages.js';
import { BroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import type { BroadcastKafkaOptions } from '../../interfaces/broadcast-kafka-options.interface.js';
import { backoffDelay, errorMessage, pause } from '../../shared/async.utils.js';
import type { KafkaOperation } from '../shared/adapter-types.js';

/** The fields of a @platformatic/kafka error the adapter reads (GenericError and its kinds). */
export interface PlatformaticErrorLike {
  name?: string;
  code?: string;
  message?: string;
  /** The broker's error name, on a ProtocolError (e.g. 'OFFSET_OUT_OF_RANGE'). */
  apiId?: string;
  /** The broker's own words, on a ProtocolError (e.g. why a SASL login was refused). */
  serverErrorMessage?: string | null;
  canRetry?: boolean;
  /** The parsed response, on a ResponseError: the partitions' own error codes are in it. */
  response?: unknown;
  cause?: unknown;
  errors?: unknown[];
}

/** The error and every error it wraps (retries wrap them in MultipleErrors), depth first. */
export function* chainOf(error: unknown, depth = 0): Generator<PlatformaticErrorLike> {
  if (!error || typeof error !== 'object' || depth > 6) return;
  const e = error as PlatformaticErrorLike;
  yield e;
  yield* chainOf(e.cause, depth + 1);
  for (const inner of e.errors ?? []) yield* chainOf(inner, depth + 1);
}

/** True when the broker answered `apiId` (a protocol error name) somewhere in the chain. */
export function hasProtocolError(error: unknown, apiId: string): boolean {
  return [...chainOf(error)].some((e) => e.apiId === apiId);
}

const DENIED: Record<string, 'topic' | 'group' | 'cluster'> = {
  TOPIC_AUTHORIZATION_FAILED: 'topic',
  GROUP_AUTHORIZATION_FAILED: 'group',
  CLUSTER_AUTHORIZATION_FAILED: 'cluster',
};
const TLS_FAILURE =
  /certificate|CERT_|self[- ]signed|unable to verify|altnames|wrong version number|SSL routines|EPROTO/i;
const UNREACHABLE =
  /ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|ECONNRESET|timed out|Connection closed|closed connection/i;

/**
 * Turns @platformatic/kafka's errors into the library's: a refused login, a TLS failure with TLS
 * on, or a missing ACL becomes one BroadcastStartupError naming the option or ACL to check.
 * The password never enters a message.
 */
export class PlatformaticErrors {
  constructor(
    private readonly kafka: BroadcastKafkaOptions,
    private readonly startupTimeoutMs: number,
  ) {}

  /**
   * Runs `attempt` until it succeeds: an unreachable broker is retried until startupTimeoutMs,
   * then reported once naming kafka.brokers; a refusal is thrown at once.
   */
  async untilReachable<T>(
    attempt: () => Promise<T>,
    during: KafkaOperation,
    signal?: AbortSignal,
  ): Promise<T> {
    const started = Date.now();
    for (let attempts = 1; ; attempts++) {
      try {
        return await attempt();
      } catch (error) {
        if (signal?.aborted) throw error;
        const fatal = this.fatal(error, during);
        if (fatal) throw fatal;
        if (!this.transient(error)) throw error;
        const elapsed = Date.now() - started;
        const delay = backoffDelay(attempts, 200, 2_000);
        if (elapsed + delay >= this.startupTimeoutMs)
          throw new BroadcastStartupError(
            'kafka.brokers',
            BroadcastMessages.kafkaUnreachable(
              this.brokers(),
              attempts,
              elapsed,
              rootMessage(error),
            ),
          );
        await pause(delay, signal);
      }
    }
  }

  /** A BroadcastStartupError for failures that retrying cannot fix; undefined otherwise. */
  fatal(error: unknown, during?: KafkaOperation): BroadcastStartupError | undefined {
    // The engine's own error (a failing token provider) wins over the client's wrapping of it.
    const own = [...chainOf(error)].find((e) => e instanceof BroadcastStartupError);
    if (own) return own as BroadcastStartupError;
    for (const e of chainOf(error)) {
      if (e.apiId === 'SASL_AUTHENTICATION_FAILED' || /SASL|authenticat/i.test(e.message ?? '')) {
        return new BroadcastStartupError(
          'kafka.sasl',
          BroadcastMessages.kafkaSaslRefused(this.kafka.sasl, this.brokers(), saslRefusal(error)),
        );
      }
      if (this.kafka.ssl !== undefined && TLS_FAILURE.test(`${e.code ?? ''} ${e.message ?? ''}`))
        return new BroadcastStartupError(
          'kafka.ssl',
          BroadcastMessages.kafkaTlsFailed(this.brokers(), e.message ?? 'TLS failure'),
        );
      const denied = e.apiId ? DENIED[e.apiId] : undefined;
      // A cluster denial of an operation that needs only topic ACLs (the idempotent producer's
      // InitProducerId, which WRITE on a topic allows) is the topic's.
      const resourceType =
        denied === 'cluster' && !during?.acl.cluster && during?.acl.topic ? 'topic' : denied;
      if (resourceType) {
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
    }
    return undefined;
  }

  /** Worth another attempt: a connection that failed, or an error the client calls retriable. */
  transient(error: unknown): boolean {
    if (this.fatal(error)) return false;
    return [...chainOf(error)].some(
      (e) => e.canRetry === true || UNREACHABLE.test(`${e.code ?? ''} ${e.message ?? ''}`),
    );
  }

  private brokers(): string {
    const { brokers } = this.kafka;
    return typeof brokers === 'function' ? 'the brokers from kafka.brokers()' : brokers.join(',');
  }
}

/**
 * Why a login was refused, as kafkajs reports it: the client's words ("SASL authentication
 * failed", without its period: the library's message adds its own) and the broker's reason.
 */
function saslRefusal(error: unknown): string {
  const chain = [...chainOf(error)];
  const refused = chain.find((e) => /SASL|authenticat/i.test(e.message ?? ''));
  const reason = chain.find((e) => e.serverErrorMessage)?.serverErrorMessage;
  const text = (refused?.message ?? 'refused').replace(/\.+$/, '');
  return reason ? `${text}: ${reason.replace(/\.+$/, '')}` : text;
}

/** The innermost message: retries wrap the socket error in errors that add nothing. */
function rootMessage(error: unknown): string {
  let message = errorMessage(error);
  for (const e of chainOf(error)) if (e.message) message = e.message;
  return message;
}
