// The client configuration users pass as `kafka`; re-exported from here so that kafkajs is
// named only inside this adapter folder.
export type { KafkaConfig } from 'kafkajs';
