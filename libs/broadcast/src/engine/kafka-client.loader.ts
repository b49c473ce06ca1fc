import type { ResolvedBroadcastOptions } from '../core/options/broadcast-options.resolver.js';
import { BroadcastMessages } from '../errors/broadcast.messages.js';
import { BroadcastStartupError } from '../errors/broadcast-startup.error.js';
import type { BroadcastKafkaClient } from '../interfaces/broadcast-kafka-options.interface.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import type { AdapterPort } from '../adapters/shared/deferred-group-consumer.js';
import { KAFKA_CLIENTS, type MakeKafkaPort, perClient } from '../adapters/registry.js';

/** Makes one client's adapter; the import fails with the client's package not found. */
export type AdapterImport = MakeKafkaPort;

/** Each adapter, imported on demand with its client (so the other client is never loaded). */
export const ADAPTER_IMPORTS: Record<BroadcastKafkaClient, AdapterImport> = perClient(
  (row) => async (o, logger, probe) => {
    const began = Date.now();
    const make = await row.adapter();
    return make(withinStartup(o, began), logger, probe);
  },
);

/**
 * The options with what is left of startupTimeoutMs once the adapter is loaded. The first start
 * loads the client during start(), which takes seconds on a busy host (@platformatic/kafka
 * compiles its option schemas when imported: 2.8 s measured at load 15): that time counts against
 * startupTimeoutMs, so an unreachable broker is still reported within it.
 */
function withinStartup(o: ResolvedBroadcastOptions, began: number): ResolvedBroadcastOptions {
  return { ...o, startupTimeoutMs: Math.max(0, o.startupTimeoutMs - (Date.now() - began)) };
}

/**
 * Begins importing the adapter of the client `kafka.client` names (the rule of loadKafkaPort) in
 * the background, and with it the client: @platformatic/kafka compiles its option schemas when
 * imported (0.8 s of CPU on this box), which the first start() would otherwise wait for. Makes no
 * client and opens no socket; a failure is left for start() to report.
 */
export function preloadKafkaClient(chosen: BroadcastKafkaClient | undefined): Promise<unknown> {
  const fail = () => new Error('not installed');
  const modules = perClient((row) => row.adapter);
  return loadForClient<unknown>(chosen, modules, { missing: fail, none: fail }).catch(
    () => undefined,
  );
}

/**
 * The adapter of the client `kafka.client` names, or, without it, of @platformatic/kafka when it
 * is installed, else of kafkajs; a BroadcastStartupError naming kafka.client when it is not there.
 */
export async function loadKafkaPort(
  o: ResolvedBroadcastOptions,
  logger: BroadcastLogger,
  adapters: Record<BroadcastKafkaClient, AdapterImport> = ADAPTER_IMPORTS,
  probe?: (step: string) => void,
): Promise<AdapterPort> {
  return loadForClient(
    o.kafka.client,
    perClient((_, client) => () => adapters[client](o, logger, probe)),
    {
      missing: (client, pkg) =>
        new BroadcastStartupError(
          'kafka.client',
          BroadcastMessages.kafkaClientMissing(client, pkg),
        ),
      none: () => new BroadcastStartupError('kafka.client', BroadcastMessages.noKafkaClient()),
    },
  );
}

/** Without `kafka.client`: the first of these that is installed. */
export const DEFAULT_CLIENT_ORDER: readonly BroadcastKafkaClient[] = [
  'platformatic',
  'confluent',
  'kafkajs',
];

/** What to throw when a client package is not installed (the engine and the CLI word it apart). */
export interface MissingClientErrors {
  /** `client` was chosen, and its package `pkg` is not installed. */
  missing(client: BroadcastKafkaClient, pkg: string): Error;
  /** Nothing was chosen and neither package is installed. */
  none(): Error;
}

/**
 * The one rule that picks a Kafka client, for the engine and the operator CLI alike: `chosen`
 * when given, else @platformatic/kafka when it is installed (maintained, KIP-848, pure
 * JavaScript), else @confluentinc/kafka-javascript (librdkafka: installed on purpose, its native
 * addon built for this Node), else kafkajs
 * (no release since 2023, but often installed by @nestjs/microservices). Each `imports` entry
 * loads something built on one client (its import fails with the client's package not found);
 * any other failure is rethrown as is.
 */
export async function loadForClient<T>(
  chosen: BroadcastKafkaClient | undefined,
  imports: Record<BroadcastKafkaClient, () => Promise<T>>,
  errors: MissingClientErrors,
): Promise<T> {
  if (chosen) {
    try {
      return await imports[chosen]();
    } catch (error) {
      if (!isMissing(error, KAFKA_CLIENTS[chosen].package)) throw error;
      throw errors.missing(chosen, KAFKA_CLIENTS[chosen].package);
    }
  }
  for (const client of DEFAULT_CLIENT_ORDER) {
    try {
      return await imports[client]();
    } catch (error) {
      if (!isMissing(error, KAFKA_CLIENTS[client].package)) throw error;
    }
  }
  throw errors.none();
}

/** True when `error` says that `pkg` itself could not be found (ESM or CommonJS resolution). */
function isMissing(error: unknown, pkg: string): boolean {
  const e = error as { code?: unknown; message?: unknown } | undefined;
  const notFound = e?.code === 'ERR_MODULE_NOT_FOUND' || e?.code === 'MODULE_NOT_FOUND';
  return notFound && typeof e?.message === 'string' && e.message.includes(`'${pkg}'`);
}
