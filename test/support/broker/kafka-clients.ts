// The Kafka client adapters the conformance specs run over, one describe.each row per client:
//
//   describe.each(kafkaClients())('on %s', (client) => {
//     const h = useEngineHarness('name', {}, client);
//   });
//
// BROADCAST_KAFKA_CLIENTS=kafkajs (or platformatic, confluent) narrows a run to one adapter;
// without it the confluent rows are left out (see BY_DEFAULT).
// BROADCAST_GROUP_PROTOCOL=classic (or consumer, auto) sets the group protocol of the
// @platformatic/kafka and @confluentinc/kafka-javascript rows (groupProtocolOf); without it they
// run the library's default, 'auto': KIP-848 on a broker that offers it on @platformatic/kafka,
// classic on @confluentinc/kafka-javascript (its 'auto').
import type { BroadcastGroupProtocol, BroadcastKafkaClient } from 'nestjs-kafka-broadcast';
import { KAFKA_CLIENT_NAMES } from '../../../libs/broadcast/src/adapters/registry.js';

export type { BroadcastKafkaClient };

/** Every client of the library's registry (adapters/registry.ts). */
const ALL: readonly BroadcastKafkaClient[] = KAFKA_CLIENT_NAMES;

/**
 * The clients a run covers without BROADCAST_KAFKA_CLIENTS: all but @confluentinc/kafka-javascript,
 * whose rows run in a pass of their own (.ci/run: BROADCAST_KAFKA_CLIENTS=confluent over the port,
 * engine and chosen fault specs), so that a third client does not add a third run of every spec
 * to the whole suite. Its port conformance row (port-rows.ts) runs in the whole suite.
 */
const BY_DEFAULT = ALL.filter((c) => c !== 'confluent');

/** The adapters to run over: the default ones, or those BROADCAST_KAFKA_CLIENTS lists. */
export function kafkaClients(): BroadcastKafkaClient[] {
  const wanted = process.env.BROADCAST_KAFKA_CLIENTS?.split(',').map((c) => c.trim());
  return wanted ? ALL.filter((c) => wanted.includes(c)) : [...BY_DEFAULT];
}

/**
 * The clients of kafkaClients() that a spec's own per-client table has a row for: a spec whose
 * setup differs per client names the clients it covers (a client without a row is not run there;
 * e.g. @confluentinc/kafka-javascript, which the package matrix cannot install from the registry).
 */
export function kafkaClientsOf<C extends BroadcastKafkaClient>(
  table: Partial<Record<BroadcastKafkaClient, unknown>> & Record<C, unknown>,
): C[] {
  return kafkaClients().filter((c): c is C => c in table);
}

/**
 * A test name made unique per adapter (kafkajs keeps the bare name), so the two runs of one
 * spec never share a topic prefix.
 */
export function clientScoped(name: string, client: BroadcastKafkaClient | undefined): string {
  return client && client !== 'kafkajs' ? `${name}-${client.slice(0, 4)}` : name;
}

/** The clients that speak both group protocols: BROADCAST_GROUP_PROTOCOL picks their rows'. */
export const TWO_PROTOCOL_CLIENTS: readonly BroadcastKafkaClient[] = ['platformatic', 'confluent'];

/**
 * kafka.groupProtocol for an engine on `client`: BROADCAST_GROUP_PROTOCOL (classic, consumer or
 * auto) picks the group protocol of the @platformatic/kafka and @confluentinc/kafka-javascript
 * rows (no client: the library's default client, @platformatic/kafka, installed here); without
 * it, or on kafkajs (classic only), the library's default. Child processes (instance.mjs,
 * child-engine.mjs) read the same variable from the environment they inherit.
 */
export function groupProtocolOf(client: BroadcastKafkaClient | undefined): {
  groupProtocol?: BroadcastGroupProtocol;
} {
  const wanted = process.env.BROADCAST_GROUP_PROTOCOL as BroadcastGroupProtocol | undefined;
  return TWO_PROTOCOL_CLIENTS.includes(client ?? 'platformatic') && wanted
    ? { groupProtocol: wanted }
    : {};
}

/**
 * The clients whose rows run KIP-848 groups in this run (the test broker offers KIP-848):
 * @platformatic/kafka unless BROADCAST_GROUP_PROTOCOL is classic ('auto', its default, picks
 * KIP-848 there), @confluentinc/kafka-javascript only with BROADCAST_GROUP_PROTOCOL=consumer
 * ('auto' is classic on it), kafkajs never. The others' rows run classic groups.
 */
export function kip848Clients(): BroadcastKafkaClient[] {
  const wanted = process.env.BROADCAST_GROUP_PROTOCOL as BroadcastGroupProtocol | undefined;
  return ALL.filter((client) =>
    client === 'platformatic'
      ? wanted !== 'classic'
      : client === 'confluent' && wanted === 'consumer',
  );
}
