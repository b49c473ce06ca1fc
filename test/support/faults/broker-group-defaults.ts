/**
 * Kafka's own defaults for consumer groups, where the test brokers of scripts/kafka shorten them
 * (sessions of 6 s): for the specs that measure what production settings give (outages, restarts).
 */
export const BROKER_DEFAULT_GROUP_SETTINGS = {
  'group.initial.rebalance.delay.ms': 3_000,
  'group.min.session.timeout.ms': 6_000,
  'group.consumer.session.timeout.ms': 45_000,
  'group.consumer.min.session.timeout.ms': 45_000,
  'group.consumer.heartbeat.interval.ms': 5_000,
  'group.consumer.min.heartbeat.interval.ms': 5_000,
} as const;
