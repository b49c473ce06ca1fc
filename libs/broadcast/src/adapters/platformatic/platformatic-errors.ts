import { BroadcastMessages } from '../../errors/broadcast.messages.js';
import { BroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import type { BroadcastKafkaOptions } from '../../interfaces/broadcast-kafka-options.interface.js';
import type { DeleteGroupOutcome } from '../../interfaces/kafka-port.interface.js';
import { errorMessage } from '../../shared/async.utils.js';
import type { KafkaOperation } from '../shared/adapter-types.js';
import { brokerList, type ClientErrors } from '../shared/client-errors.js';

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
 * Reads @platformatic/kafka's errors (the ClientErrors of adapters/shared/client-errors.ts): a
 * refused login, a TLS failure with TLS on, or a missing ACL becomes one BroadcastStartupError
 * naming the option or ACL to check; an unreachable broker is transient (retried until
 * startupTimeoutMs by adapters/shared/until-reachable.ts). The password never enters a message.
 */
export class PlatformaticErrors implements ClientErrors {
  constructor(private readonly kafka: BroadcastKafkaOptions) {}

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

  /**
   * `fatal()` for a group call. The client finds the group's coordinator first
   * (clients/admin/admin.js:683-685 in 2.12.1, 669 in 1.35; 2.12.1 wraps a failed FindCoordinator
   * in a MultipleErrors, whose chain still holds it); without any ACL on the group the broker
   * refuses that FindCoordinator, which needs DESCRIBE: named as kafkajs's adapter names it.
   */
  async fatalForGroup(
    error: unknown,
    during: KafkaOperation & { groupId: string },
  ): Promise<BroadcastStartupError | undefined> {
    const findingCoordinator = [...chainOf(error)].some((e) =>
      /FindCoordinator/.test(e.message ?? ''),
    );
    return this.fatal(
      error,
      findingCoordinator
        ? {
            ...during,
            operation: `${during.operation} (finding its coordinator)`,
            acl: { group: 'DESCRIBE' },
          }
        : during,
    );
  }

  /** Worth another attempt: a connection that failed, or an error the client calls retriable. */
  transient(error: unknown): boolean {
    if (this.fatal(error)) return false;
    return [...chainOf(error)].some(
      (e) => e.canRetry === true || UNREACHABLE.test(`${e.code ?? ''} ${e.message ?? ''}`),
    );
  }

  /** The innermost message: retries wrap the socket error in errors that add nothing. */
  rootMessage(error: unknown): string {
    let message = errorMessage(error);
    for (const e of chainOf(error)) if (e.message) message = e.message;
    return message;
  }

  deleteAnswer(error: unknown): Exclude<DeleteGroupOutcome, 'deleted'> | undefined {
    if (hasProtocolError(error, 'NON_EMPTY_GROUP')) return 'non-empty';
    if (hasProtocolError(error, 'GROUP_ID_NOT_FOUND')) return 'not-found';
    return undefined;
  }

  private brokers(): string {
    return brokerList(this.kafka.brokers);
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
