// The engine's own Kafka port (the one it builds without deps.kafka), with the records its group
// consumers hand over from one topic counted: what an instance fetched, seen from outside it.
import type { BroadcastModuleOptions } from '../../../libs/broadcast/src/interfaces/broadcast-module-options.interface.js';
import type { BroadcastLogger } from '../../../libs/broadcast/src/interfaces/broadcast-logger.interface.js';
import type { KafkaPort } from '../../../libs/broadcast/src/interfaces/kafka-port.interface.js';
import { resolveBroadcastOptions } from '../../../libs/broadcast/src/core/options/broadcast-options.resolver.js';
import { LazyKafkaPort } from '../../../libs/broadcast/src/engine/lazy-kafka-port.js';

/** Makes an engine's port that adds 1 to `counts[name]` for every record of `topic` handed over. */
export function countingPort(topic: string, counts: Map<string, number>, name: string) {
  return (options: BroadcastModuleOptions, logger: BroadcastLogger): KafkaPort => {
    const port = LazyKafkaPort.forOptions(resolveBroadcastOptions(options), logger).warm();
    counts.set(name, 0);
    return {
      admin: port.admin,
      about: () => port.about?.(),
      createGroupConsumer: (spec) =>
        port.createGroupConsumer({
          ...spec,
          sink: (t, partition, record) => {
            if (t === topic) counts.set(name, (counts.get(name) ?? 0) + 1);
            return spec.sink(t, partition, record);
          },
        }),
      send: port.send.bind(port),
      disconnect: () => port.disconnect(),
    };
  };
}
