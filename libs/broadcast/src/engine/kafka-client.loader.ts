import type { ResolvedBroadcastOptions } from '../core/broadcast-options.resolver.js';
import { BroadcastMessages } from '../errors/broadcast.messages.js';
import { BroadcastStartupError } from '../errors/broadcast-startup.error.js';
import type { BroadcastKafkaClient } from '../interfaces/broadcast-kafka-options.interface.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import type { KafkaPort } from '../interfaces/kafka-port.interface.js';

const PACKAGE: Record<BroadcastKafkaClient, string> = {
  kafkajs: 'kafkajs',
  platformatic: '@platformatic/kafka',
};

/** Makes one client's adapter; the import fails with the client's package not found. */
export type AdapterImport = (
  o: ResolvedBroadcastOptions,
  logger: BroadcastLogger,
) => Promise<KafkaPort>;

/** Each adapter, imported on demand with its client (so the other client is never loaded). */
export const ADAPTER_IMPORTS: Record<BroadcastKafkaClient, AdapterImport> = {
  kafkajs: async (o, logger) => {
    const began = Date.now();
    const { KafkajsAdapter } = await import('../kafka/kafkajs.adapter.js');
    return new KafkajsAdapter(withinStartup(o, began), logger);
  },
  platformatic: async (o, logger) => {
    const began = Date.now();
    const { PlatformaticAdapter } = await import('../kafka-platformatic/platformatic.adapter.js');
    // @platformatic/kafka takes a list of bootstrap brokers, not a function that returns one.
    const { brokers } = o.kafka;
    const list = typeof brokers === 'function' ? await brokers() : brokers;
    return new PlatformaticAdapter(withinStartup(o, began), list, logger);
  },
};

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
 * The adapter of the client `kafka.client` names, or, without it, of kafkajs when it is installed,
 * else of @platformatic/kafka; a BroadcastStartupError naming kafka.client when it is not there.
 */
export async function loadKafkaPort(
  o: ResolvedBroadcastOptions,
  logger: BroadcastLogger,
  adapters: Record<BroadcastKafkaClient, AdapterImport> = ADAPTER_IMPORTS,
): Promise<KafkaPort> {
  const chosen = o.kafka.client;
  if (chosen) {
    try {
      return await adapters[chosen](o, logger);
    } catch (error) {
      if (!isMissing(error, PACKAGE[chosen])) throw error;
      throw new BroadcastStartupError(
        'kafka.client',
        BroadcastMessages.kafkaClientMissing(chosen, PACKAGE[chosen]),
      );
    }
  }
  for (const client of ['kafkajs', 'platformatic'] as const) {
    try {
      return await adapters[client](o, logger);
    } catch (error) {
      if (!isMissing(error, PACKAGE[client])) throw error;
    }
  }
  throw new BroadcastStartupError('kafka.client', BroadcastMessages.noKafkaClient());
}

/** True when `error` says that `pkg` itself could not be found (ESM or CommonJS resolution). */
function isMissing(error: unknown, pkg: string): boolean {
  const e = error as { code?: unknown; message?: unknown } | undefined;
  const notFound = e?.code === 'ERR_MODULE_NOT_FOUND' || e?.code === 'MODULE_NOT_FOUND';
  return notFound && typeof e?.message === 'string' && e.message.includes(`'${pkg}'`);
}
