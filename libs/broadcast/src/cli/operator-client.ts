import { resolveBroadcastOptions } from '../core/options/broadcast-options.resolver.js';
import { KAFKA_CLIENT_PACKAGES, loadForClient } from '../engine/kafka-client.loader.js';
import type {
  BroadcastKafkaClient,
  BroadcastKafkaOptions,
} from '../interfaces/broadcast-kafka-options.interface.js';
import type { OperatorKafkaPort } from '../interfaces/broadcast-operator.interface.js';

/** Makes the operator port on one client; the import fails with the client's package not found. */
export type OperatorImport = (kafka: BroadcastKafkaOptions) => Promise<OperatorKafkaPort>;

/** Each client's operator port, imported on demand with its client (the other is never loaded). */
export const OPERATOR_IMPORTS: Record<BroadcastKafkaClient, OperatorImport> = {
  kafkajs: async (kafka) => {
    const { KafkajsOperator } = await import('../kafka/kafkajs-operator.js');
    return new KafkajsOperator(kafka);
  },
  platformatic: async (kafka) => {
    const { PlatformaticOperator } = await import('../kafka-platformatic/platformatic-operator.js');
    // The engine's own defaults (consumer timings, topic settings) for the reading consumer.
    const resolved = resolveBroadcastOptions({ kafka, lock: false });
    const { brokers } = kafka;
    return new PlatformaticOperator(
      resolved,
      typeof brokers === 'function' ? await brokers() : brokers,
    );
  },
};

/**
 * The CLI's Kafka client, chosen as the engine chooses (engine/kafka-client.loader.ts):
 * `kafka.client` (--client, KAFKA_CLIENT) when given, else @platformatic/kafka when it is
 * installed, else kafkajs; an error naming the package(s) to install when it is not there.
 */
export function loadOperatorPort(
  kafka: BroadcastKafkaOptions,
  imports: Record<BroadcastKafkaClient, OperatorImport> = OPERATOR_IMPORTS,
): Promise<OperatorKafkaPort> {
  const options = { clientId: 'nestjs-kafka-broadcast-cli', ...kafka };
  return loadForClient(
    kafka.client,
    { kafkajs: () => imports.kafkajs(options), platformatic: () => imports.platformatic(options) },
    {
      missing: (client, pkg) =>
        new Error(
          `--client ${client} (or KAFKA_CLIENT) needs the '${pkg}' package: npm install ${pkg}`,
        ),
      none: () =>
        new Error(
          `no Kafka client is installed: npm install ${KAFKA_CLIENT_PACKAGES.platformatic} or npm install ${KAFKA_CLIENT_PACKAGES.kafkajs} (--client or KAFKA_CLIENT chooses when both are)`,
        ),
    },
  );
}
