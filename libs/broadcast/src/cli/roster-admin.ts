import { resolveBroadcastOptions } from '../core/options/broadcast-options.resolver.js';
import { loadKafkaPort } from '../engine/kafka-client.loader.js';
import { LazyKafkaPort } from '../engine/lazy-kafka-port.js';
import type { BroadcastKafkaOptions } from '../interfaces/broadcast-kafka-options.interface.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import type { KafkaAdminPort } from '../interfaces/kafka-port.interface.js';

/**
 * The engine's admin, for the roster that receipts need (the live members of the pool groups
 * with the topics they read, which the operator port does not describe), on the client the
 * engine would choose for `kafka` (the CLI's: --client or the one installed). Nothing else of
 * the adapter is used: no consumer is made, so its consumer and topic settings are the defaults.
 */
export function openRosterAdmin(
  kafka: BroadcastKafkaOptions,
  logger: BroadcastLogger,
): { admin: KafkaAdminPort; close: () => Promise<void> } {
  const options = resolveBroadcastOptions({
    kafka: { clientId: 'nestjs-kafka-broadcast-cli', ...kafka },
    lock: false,
  });
  const port = new LazyKafkaPort(() => loadKafkaPort(options, logger));
  return { admin: port.admin, close: () => port.disconnect() };
}
