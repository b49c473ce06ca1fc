// The types every Kafka adapter shares (adapters/kafkajs, adapters/platformatic): one definition,
// imported by each; nothing here names a client.
import type { BroadcastKafkaOptions } from '../../interfaces/broadcast-kafka-options.interface.js';

/** The group consumer's timings, from the resolved `consumer` options. */
export interface ConsumerTimings {
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  maxWaitTimeMs: number;
  metadataMaxAgeMs: number;
}

/** How the topics the engine creates are made. */
export interface TopicSettings {
  numPartitions: number;
  replicationFactor: number | undefined;
}

/** What an adapter is made with (the resolved options it reads). */
export interface AdapterOptions {
  kafka: BroadcastKafkaOptions;
  consumer: ConsumerTimings;
  topics: TopicSettings;
  /** How long startup retries an unreachable broker (default 60000). */
  startupTimeoutMs?: number;
}

/** What the engine was doing when Kafka said no: names the ACL it needs for it. */
export interface KafkaOperation {
  /** e.g. 'create topics', 'delete consumer group', 'read (consume)' */
  operation: string;
  /** The ACL the operation needs on each resource type it touches. */
  acl: { topic?: string; group?: string; cluster?: string };
  topics?: readonly string[];
  groupId?: string;
}

/**
 * The rebalance timeout both adapters give their consumers: the session timeout, at least 10 s.
 * A join in flight ends within it, so it also bounds how long a stop waits for a consumer's close
 * before cutting it (a broker that answers nothing by then will not).
 */
export function rebalanceTimeoutMs(timings: Pick<ConsumerTimings, 'sessionTimeoutMs'>): number {
  return Math.max(timings.sessionTimeoutMs, 10_000);
}
