// The Kafka client adapters the conformance specs run over, one describe.each row per client:
//
//   describe.each(kafkaClients())('on %s', (client) => {
//     const h = useEngineHarness('name', {}, client);
//   });
//
// BROADCAST_KAFKA_CLIENTS=kafkajs (or platformatic) narrows a run to one adapter.
import type { BroadcastKafkaClient } from 'nestjs-kafka-broadcast';

export type { BroadcastKafkaClient };

const ALL: readonly BroadcastKafkaClient[] = ['kafkajs', 'platformatic'];

/** The adapters to run over: all of them, or those BROADCAST_KAFKA_CLIENTS lists. */
export function kafkaClients(): BroadcastKafkaClient[] {
  const wanted = process.env.BROADCAST_KAFKA_CLIENTS?.split(',').map((c) => c.trim());
  return ALL.filter((c) => !wanted || wanted.includes(c));
}

/**
 * A test name made unique per adapter (kafkajs keeps the bare name), so the two runs of one
 * spec never share a topic prefix.
 */
export function clientScoped(name: string, client: BroadcastKafkaClient | undefined): string {
  return client && client !== 'kafkajs' ? `${name}-${client.slice(0, 4)}` : name;
}
