import { KAFKA_CLIENTS, type MakeOperatorPort, perClient } from '../adapters/registry.js';
import { loadForClient } from '../engine/kafka-client.loader.js';
import type {
  BroadcastKafkaClient,
  BroadcastKafkaOptions,
} from '../interfaces/broadcast-kafka-options.interface.js';
import type { OperatorKafkaPort } from '../interfaces/broadcast-operator.interface.js';

/** Makes the operator port on one client; the import fails with the client's package not found. */
export type OperatorImport = MakeOperatorPort;

/** Each client's operator port, imported on demand with its client (the other is never loaded). */
export const OPERATOR_IMPORTS: Record<BroadcastKafkaClient, OperatorImport> = perClient(
  (row) => async (kafka) => (await row.operator())(kafka),
);

/**
 * The CLI's Kafka client, chosen as the engine chooses (engine/kafka-client.loader.ts):
 * `kafka.client` (--client, KAFKA_CLIENT) when given, else the first installed of
 * @platformatic/kafka, @confluentinc/kafka-javascript and kafkajs; an error naming the package(s)
 * to install when it is not there.
 */
export function loadOperatorPort(
  kafka: BroadcastKafkaOptions,
  imports: Record<BroadcastKafkaClient, OperatorImport> = OPERATOR_IMPORTS,
): Promise<OperatorKafkaPort> {
  const options = { clientId: 'nestjs-kafka-broadcast-cli', ...kafka };
  return loadForClient(
    kafka.client,
    perClient((_, client) => () => imports[client](options)),
    {
      missing: (client, pkg) =>
        new Error(
          `--client ${client} (or KAFKA_CLIENT) needs the '${pkg}' package: npm install ${pkg}`,
        ),
      none: () =>
        new Error(
          `no Kafka client is installed: npm install ${KAFKA_CLIENTS.platformatic.package}, npm install ${KAFKA_CLIENTS.confluent.package} or npm install ${KAFKA_CLIENTS.kafkajs.package} (--client or KAFKA_CLIENT chooses when several are)`,
        ),
    },
  );
}
