import type {
  GroupConsumerPort,
  GroupConsumerSpec,
  KafkaAdminPort,
  KafkaPort,
  OutgoingRecord,
} from '../interfaces/kafka-port.interface.js';
import { guardedAdmin, PortClosure } from '../adapters/shared/port-closure.js';
import { InMemoryAdmin } from './in-memory-admin.js';
import { InMemoryGroupConsumer } from './in-memory-group-consumer.js';
import type { InMemoryKafka } from './in-memory-kafka.js';

/**
 * One client of an in-memory broker (InMemoryKafka.port()): what an engine is given instead of
 * the kafkajs adapter. Sends append at once (the acknowledgement is the append), consumers join the
 * broker's groups. Its consumers stop with the engine; disconnect() stops any left running, and
 * from then on every call is refused as the adapters refuse it (the contract's closed port).
 */
export class InMemoryKafkaPort implements KafkaPort {
  readonly admin: KafkaAdminPort;
  private readonly consumers: InMemoryGroupConsumer[] = [];
  private readonly closure = new PortClosure();

  constructor(readonly broker: InMemoryKafka) {
    this.admin = guardedAdmin(new InMemoryAdmin(broker), this.closure, async () => undefined);
  }

  createGroupConsumer(spec: GroupConsumerSpec): GroupConsumerPort {
    this.closure.refuse();
    const consumer = new InMemoryGroupConsumer(spec, this.broker, () => this.closure.refuse());
    this.consumers.push(consumer);
    return consumer;
  }

  send(topic: string, records: OutgoingRecord[]): Promise<void> {
    return this.closure.run(async () => void this.broker.append(topic, records));
  }

  disconnect(): Promise<void> {
    return this.closure.close(async () => {
      await Promise.all(this.consumers.map((c) => c.stop()));
    });
  }
}
