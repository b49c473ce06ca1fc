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

/**
 * The adapter of the client `kafka.client` names, or, without it, of kafkajs when it is installed,
 * else of @platformatic/kafka. Each adapter is imported here on demand (its client with it), so
 * an app with only one client installed never loads the other.
 */
export async function loadKafkaPort(
  o: ResolvedBroadcastOptions,
  logger: BroadcastLogger,
): Promise<KafkaPort> {
  const chosen = o.kafka.client;
  if (chosen) {
    try {
      return await load(chosen, o, logger);
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
      return await load(client, o, logger);
    } catch (error) {
      if (!isMissing(error, PACKAGE[client])) throw error;
    }
  }
  throw new BroadcastStartupError('kafka.client', BroadcastMessages.noKafkaClient());
}

async function load(
  client: BroadcastKafkaClient,
  o: ResolvedBroadcastOptions,
  logger: BroadcastLogger,
): Promise<KafkaPort> {
  if (client === 'kafkajs') {
    const { KafkajsAdapter } = await import('../kafka/kafkajs.adapter.js');
    return new KafkajsAdapter(o, logger);
  }
  const { PlatformaticAdapter } = await import('../kafka-platformatic/platformatic.adapter.js');
  // @platformatic/kafka takes a list of bootstrap brokers, not a function that returns one.
  const brokers = typeof o.kafka.brokers === 'function' ? await o.kafka.brokers() : o.kafka.brokers;
  return new PlatformaticAdapter(o, brokers, logger);
}

/** True when `error` says that `pkg` itself could not be found (ESM or CommonJS resolution). */
function isMissing(error: unknown, pkg: string): boolean {
  const e = error as { code?: unknown; message?: unknown } | undefined;
  const notFound = e?.code === 'ERR_MODULE_NOT_FOUND' || e?.code === 'MODULE_NOT_FOUND';
  return notFound && typeof e?.message === 'string' && e.message.includes(`'${pkg}'`);
}
