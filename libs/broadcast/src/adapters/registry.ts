// The Kafka clients the library speaks, one row each: adding a client is a folder
// (adapters/<client>/, see adapters/kafkajs/README.md for its file roles) and a row here, plus its
// name in BroadcastKafkaClient. Each row imports its adapter or operator only when called, so the
// client package (an optional peer) is loaded on demand and an app installs only the one it uses.
import { resolveBroadcastOptions } from '../core/options/broadcast-options.resolver.js';
import { BroadcastMessages } from '../errors/broadcast.messages.js';
import { BroadcastStartupError } from '../errors/broadcast-startup.error.js';
import { errorMessage } from '../shared/async.utils.js';
import type { ResolvedBroadcastOptions } from '../core/options/broadcast-options.resolver.js';
import type {
  BroadcastKafkaClient,
  BroadcastKafkaOptions,
} from '../interfaces/broadcast-kafka-options.interface.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import type { OperatorKafkaPort } from '../interfaces/broadcast-operator.interface.js';
import type { AdapterPort } from './shared/deferred-group-consumer.js';

/**
 * Makes a client's engine port (nothing is connected until the engine starts it). Every adapter
 * is made the same way: `new <Client>Adapter(options, logger, probe)`.
 */
export type MakeKafkaPort = (
  o: ResolvedBroadcastOptions,
  logger: BroadcastLogger,
  /** The engine's test hook, handed to the adapter's constructor (never on the port). */
  probe?: (step: string) => void,
) => Promise<AdapterPort>;

/** Makes a client's operator port, for the CLI. */
export type MakeOperatorPort = (kafka: BroadcastKafkaOptions) => Promise<OperatorKafkaPort>;

/** One client: its package and its two modules, each imported on demand with the client. */
export interface KafkaClientRow {
  /** The npm package of the client (an optional peer of the library). */
  readonly package: string;
  /** Imports the adapter module (and the client); fails with the package not found. */
  readonly adapter: () => Promise<MakeKafkaPort>;
  /** Imports the operator module (and the client); fails with the package not found. */
  readonly operator: () => Promise<MakeOperatorPort>;
}

/** Resolves `kafka.brokers` to a list, for a client that takes no function. */
async function brokerList(brokers: BroadcastKafkaOptions['brokers']): Promise<string[]> {
  return typeof brokers === 'function' ? await brokers() : brokers;
}

/** Every client, by its `kafka.client` name. */
export const KAFKA_CLIENTS: Readonly<Record<BroadcastKafkaClient, KafkaClientRow>> = {
  kafkajs: {
    package: 'kafkajs',
    adapter: async () => {
      const { KafkajsAdapter } = await import('./kafkajs/kafkajs.adapter.js');
      return async (o, logger, probe) => new KafkajsAdapter(o, logger, probe);
    },
    operator: async () => {
      const { KafkajsOperator } = await import('./kafkajs/kafkajs-operator.js');
      return async (kafka) => new KafkajsOperator(kafka);
    },
  },
  platformatic: {
    package: '@platformatic/kafka',
    adapter: async () => {
      const { PlatformaticAdapter } = await import('./platformatic/platformatic.adapter.js');
      // @platformatic/kafka takes a list of bootstrap brokers, not a function that returns one.
      return async (o, logger, probe) =>
        new PlatformaticAdapter(
          { ...o, kafka: { ...o.kafka, brokers: await brokerList(o.kafka.brokers) } },
          logger,
          probe,
        );
    },
    operator: async () => {
      const { PlatformaticOperator } = await import('./platformatic/platformatic-operator.js');
      // The engine's own defaults (consumer timings, topic settings) for the reading consumer.
      return async (kafka) =>
        new PlatformaticOperator(
          resolveBroadcastOptions({ kafka, lock: false }),
          await brokerList(kafka.brokers),
        );
    },
  },
  confluent: {
    package: '@confluentinc/kafka-javascript',
    adapter: async () => {
      const { ConfluentAdapter } = await loadNative(
        () => import('./confluent/confluent.adapter.js'),
      );
      // librdkafka takes a list of bootstrap brokers, not a function that returns one.
      return async (o, logger, probe) =>
        new ConfluentAdapter(
          { ...o, kafka: { ...o.kafka, brokers: await brokerList(o.kafka.brokers) } },
          logger,
          probe,
        );
    },
    operator: async () => {
      const { ConfluentOperator } = await loadNative(
        () => import('./confluent/confluent-operator.js'),
      );
      return async (kafka) =>
        new ConfluentOperator(
          resolveBroadcastOptions({ kafka, lock: false }),
          await brokerList(kafka.brokers),
        );
    },
  },
};

/**
 * Imports a module built on @confluentinc/kafka-javascript, whose native addon may be installed
 * and still not load (built for another Node, its shared libraries missing): that is a
 * BroadcastStartupError naming the package, the reason and what to do, not a crash. A package that
 * is not installed at all is rethrown as is (the loader reports it, or tries the next client).
 */
async function loadNative<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const e = error as { code?: unknown; message?: unknown };
    const missing =
      (e.code === 'ERR_MODULE_NOT_FOUND' || e.code === 'MODULE_NOT_FOUND') &&
      typeof e.message === 'string' &&
      e.message.includes("'@confluentinc/kafka-javascript'");
    if (missing) throw error;
    throw new BroadcastStartupError(
      'kafka.client',
      BroadcastMessages.nativeClientUnloadable(
        '@confluentinc/kafka-javascript',
        errorMessage(error).replace(/\s*\n\s*/g, ' '),
      ),
    );
  }
}

/** The client names, in the registry's order. */
export const KAFKA_CLIENT_NAMES = Object.keys(KAFKA_CLIENTS) as BroadcastKafkaClient[];

/** A record with one entry per client, made from each row. */
export function perClient<T>(
  make: (row: KafkaClientRow, client: BroadcastKafkaClient) => T,
): Record<BroadcastKafkaClient, T> {
  return Object.fromEntries(
    KAFKA_CLIENT_NAMES.map((client) => [client, make(KAFKA_CLIENTS[client], client)]),
  ) as Record<BroadcastKafkaClient, T>;
}
