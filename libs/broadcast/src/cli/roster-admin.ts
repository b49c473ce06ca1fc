import {
  DEFAULT_CONSUMER_HEARTBEAT_INTERVAL_MS,
  DEFAULT_MAX_WAIT_TIME_MS,
  DEFAULT_METADATA_MAX_AGE_MS,
  DEFAULT_SESSION_TIMEOUT_MS,
  DEFAULT_TOPIC_PARTITIONS,
} from '../core/options/broadcast.defaults.js';
import type { BroadcastKafkaOptions } from '../interfaces/broadcast-kafka-options.interface.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import type { KafkaAdminPort } from '../interfaces/kafka-port.interface.js';
import { KafkajsAdapter } from '../kafka/kafkajs.adapter.js';

/**
 * The engine's admin, for the roster that receipts need (the live members of the pool groups
 * with the topics they read, which the operator port does not describe). Nothing else of the
 * adapter is used: no consumer is made, so its consumer and topic settings are only the defaults.
 */
export function openRosterAdmin(
  kafka: BroadcastKafkaOptions,
  logger: BroadcastLogger,
): { admin: KafkaAdminPort; close: () => Promise<void> } {
  const adapter = new KafkajsAdapter(
    {
      kafka: { clientId: 'nestjs-kafka-broadcast-cli', ...kafka },
      consumer: {
        sessionTimeoutMs: DEFAULT_SESSION_TIMEOUT_MS,
        heartbeatIntervalMs: DEFAULT_CONSUMER_HEARTBEAT_INTERVAL_MS,
        maxWaitTimeMs: DEFAULT_MAX_WAIT_TIME_MS,
        metadataMaxAgeMs: DEFAULT_METADATA_MAX_AGE_MS,
      },
      topics: { numPartitions: DEFAULT_TOPIC_PARTITIONS, replicationFactor: undefined },
    },
    logger,
  );
  return { admin: adapter.admin, close: () => adapter.disconnect() };
}
