import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import type { GroupConsumerSpec } from '../../interfaces/kafka-port.interface.js';
import type { ConsumerOwner } from '../shared/group-consumer-lifecycle.js';
import type { OwnMember } from './confluent-admin.js';
import type { ConfluentErrors } from './confluent-errors.js';
import { rebalanceTimeoutMs, type ConsumerTimings } from '../shared/adapter-types.js';
import type { RdkafkaConfig } from './confluent-config.js';
import type { ConfluentTokens } from './confluent-oauth-tokens.js';

/**
 * A group consumer's topic configuration: a position out of the log is an error the adapter
 * hands to the engine, never a reset. (librdkafka reads this one from the topic configuration
 * only: in the global one it is ignored and the default, 'latest', applies.)
 */
export const CONSUMER_TOPIC_CONFIG = { 'auto.offset.reset': 'error' } as const;

/**
 * A group consumer's librdkafka configuration. Positions are the engine's: nothing is committed
 * or stored (nor reset: CONSUMER_TOPIC_CONFIG), and the end of each partition's log is reported (progress past filtered records).
 * KIP-848 ('consumer') refuses the classic session, heartbeat and assignor settings: the broker
 * owns them. The client id is this consumer's own (confluent-member-client-id.ts): unique, so the
 * admin can find this member (the consumer does not tell its member id), and carrying the
 * member info (the one per-member string the binding's describe gives back on both protocols).
 */
export function consumerConfig(
  base: RdkafkaConfig,
  spec: GroupConsumerSpec,
  protocol: 'classic' | 'consumer',
  timings: ConsumerTimings,
  clientId: string,
): RdkafkaConfig {
  return {
    ...base,
    'client.id': clientId,
    'group.id': spec.groupId,
    'group.protocol': protocol,
    ...(protocol === 'classic' && {
      'session.timeout.ms': timings.sessionTimeoutMs,
      'heartbeat.interval.ms': timings.heartbeatIntervalMs,
      // Eager: every rebalance revokes and assigns the whole assignment, so every membership
      // change reaches the engine (a new generation with the same partitions included).
      'partition.assignment.strategy': 'roundrobin',
      'max.poll.interval.ms': Math.max(300_000, rebalanceTimeoutMs(timings)),
    }),
    'enable.auto.commit': false,
    'enable.auto.offset.store': false,
    'enable.partition.eof': true,
    'fetch.wait.max.ms': timings.maxWaitTimeMs,
    'topic.metadata.refresh.interval.ms': timings.metadataMaxAgeMs,
    'allow.auto.create.topics': false,
  };
}

/** What one group consumer is made with. */
export interface ConfluentConsumerDeps {
  /** The client's base configuration (brokers, TLS, SASL, client id). */
  base: RdkafkaConfig;
  protocol: 'classic' | 'consumer';
  timings: ConsumerTimings;
  logger: BroadcastLogger;
  errors: ConfluentErrors;
  /** SASL/OAUTHBEARER only: the provider's tokens (librdkafka's token refresh callback). */
  tokens: ConfluentTokens | undefined;
  owner: ConsumerOwner;
  /**
   * This consumer's member id, found through the admin by its client id, and the member ids the
   * group holds with it.
   */
  ownMember: (groupId: string, clientId: string) => Promise<OwnMember | undefined>;
  /** The log bounds of a partition now (low: log start, high: high watermark). */
  bounds: (topic: string, partition: number) => Promise<{ low: number; high: number }>;
}
