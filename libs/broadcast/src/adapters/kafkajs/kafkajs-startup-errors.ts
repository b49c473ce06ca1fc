import { BroadcastMessages } from '../../errors/broadcast.messages.js';
import { BroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import type { BroadcastKafkaOptions } from '../../interfaces/broadcast-kafka-options.interface.js';
import type { KafkaOperation } from '../shared/adapter-types.js';
import { brokerList } from '../shared/client-errors.js';
import type { KafkajsErrorLike } from './kafkajs-error-chain.js';

/** A TLS failure in Node's or OpenSSL's words: a certificate, host name or protocol mismatch. */
export const TLS_FAILURE =
  /certificate|CERT_|self[- ]signed|unable to verify|altnames|wrong version number|SSL routines|EPROTO/i;
const DENIED: Record<string, 'topic' | 'group' | 'cluster'> = {
  TOPIC_AUTHORIZATION_FAILED: 'topic',
  GROUP_AUTHORIZATION_FAILED: 'group',
  CLUSTER_AUTHORIZATION_FAILED: 'cluster',
};

/**
 * The BroadcastStartupError for one error of a kafkajs chain that retrying cannot fix (a refused
 * login, a TLS failure with TLS on, a missing ACL), naming the option or ACL to check; undefined
 * for any other. The password never enters a message.
 */
export function refusalOf(
  e: KafkajsErrorLike,
  kafka: BroadcastKafkaOptions,
  during: KafkaOperation | undefined,
): BroadcastStartupError | undefined {
  if (e.name === 'KafkaJSSASLAuthenticationError') {
    return new BroadcastStartupError(
      'kafka.sasl',
      BroadcastMessages.kafkaSaslRefused(kafka.sasl, brokerList(kafka.brokers), clean(e.message)),
    );
  }
  // kafkajs does not read the broker's answer to a refused OAUTHBEARER token (an error JSON
  // instead of a success); its next request on that connection is then refused in this state.
  if (e.type === 'ILLEGAL_SASL_STATE' && kafka.sasl?.mechanism === 'oauthbearer') {
    return new BroadcastStartupError(
      'kafka.sasl',
      BroadcastMessages.kafkaSaslRefused(
        kafka.sasl,
        brokerList(kafka.brokers),
        `the broker did not accept the token (kafkajs: ${clean(e.message)})`,
      ),
    );
  }
  if (TLS_FAILURE.test(`${e.code ?? ''} ${e.message ?? ''}`) && kafka.ssl !== undefined)
    return new BroadcastStartupError(
      'kafka.ssl',
      BroadcastMessages.kafkaTlsFailed(brokerList(kafka.brokers), clean(e.message)),
    );
  const resourceType = e.type ? DENIED[e.type] : undefined;
  if (resourceType) return missingAcl(deniedResource(resourceType, during), e, during);
  return undefined;
}

/**
 * The resource whose ACL is missing. An operation that needs no cluster ACL of its own can
 * still be denied on the cluster by a step the topic ACL covers: the idempotent producer's
 * InitProducerId is allowed by WRITE on any topic (Kafka 3.0 and later), so it is the topic's.
 */
function deniedResource(
  resourceType: 'topic' | 'group' | 'cluster',
  during: KafkaOperation | undefined,
): 'topic' | 'group' | 'cluster' {
  return resourceType === 'cluster' && !during?.acl.cluster && during?.acl.topic
    ? 'topic'
    : resourceType;
}

/** The broker denied `during` for lack of an ACL on a resource of `resourceType`. */
function missingAcl(
  resourceType: 'topic' | 'group' | 'cluster',
  e: KafkajsErrorLike,
  during: KafkaOperation | undefined,
): BroadcastStartupError {
  const resource =
    resourceType === 'group'
      ? (during?.groupId ?? 'the consumer group')
      : resourceType === 'cluster'
        ? 'kafka-cluster'
        : (e.topic ?? during?.topics?.join(', ') ?? 'the broadcast topics');
  const acl = during?.acl[resourceType] ?? 'the needed';
  return BroadcastStartupError.missingAcl(
    during?.operation ?? 'an operation',
    resourceType,
    resource,
    acl,
  );
}

/** kafkajs prefixes; what is left is the cause in the broker's or Node's words. */
export function clean(message: string | undefined): string {
  return (message ?? 'unknown error').replace(/^(Connection error|Failed to connect): /, '');
}
