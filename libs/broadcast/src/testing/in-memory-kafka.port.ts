import type {
  GroupConsumerPort,
  GroupConsumerSpec,
  KafkaAdminPort,
  KafkaPort,
  OutgoingRecord,
} from '../interfaces/kafka-port.interface.js';
import { InMemoryAdmin } from './in-memory-admin.js';
import { InMemoryGroupConsumer } from './in-memory-group-consumer.js';
import type { InMemoryKafka } from './in-memory-kafka.js';

/**
 * One client of an in-memory broker (InMemoryKafka.port()): what an engine is given instead of
 * the kafkajs adapter. Sends append at once (the acknowledgement is the append), consumers join the
 * broker's groups. Its consumers stop with the engine; disconnect() stops any left running.
 */
export class InMemoryKafkaPort implements KafkaPort {
  readonly admin: KafkaAdminPort;
  private readonly consumers: InMemoryGroupConsumer[] = [];

  constructor(readonly broker: InMemoryKafka) {
    this.admin = new InMemoryAdmin(broker);
  }

  createGroupConsumer(spec: GroupConsumerSpec): GroupConsumerPort {
    const consumer = new InMemoryGroupConsumer(spec, this.broker);
    this.consumers.push(consumer);
    return consumer;
  }

  async send(topic: string, records: OutgoingRecord[]): Promise<void> {
    this.broker.append(topic, records);
  }

  async disconnect(): Promise<void> {
    await Promise.all(this.consumers.map((c) => c.stop()));
  }
}
