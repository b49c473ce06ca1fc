// A @platformatic/kafka adapter on the KIP-848 protocol and group consumers driven through the
// port, recording what they tell the engine's listener (test/port-kip848-*.spec.ts).
import type { Admin } from '@platformatic/kafka';
import { PlatformaticAdapter } from '../../../libs/broadcast/src/adapters/platformatic/platformatic.adapter.js';
import { describeConsumerGroup } from '../../../libs/broadcast/src/adapters/platformatic/platformatic-consumer-group-describe.js';
import type {
  GroupConsumerListener,
  GroupConsumerPort,
  RecordSink,
} from '../../../libs/broadcast/src/interfaces/kafka-port.interface.js';

const SILENT = { log: () => undefined, warn: () => undefined, error: () => undefined };

export function kip848Adapter(brokers: string[], clientId: string): PlatformaticAdapter {
  return new PlatformaticAdapter(
    {
      kafka: { brokers, clientId, groupProtocol: 'consumer' },
      consumer: {
        sessionTimeoutMs: 10_000,
        heartbeatIntervalMs: 500,
        maxWaitTimeMs: 100,
        metadataMaxAgeMs: 300_000,
      },
      topics: { numPartitions: 1, replicationFactor: 1 },
    },
    SILENT,
  );
}

/** What one group consumer told its listener. */
export interface Heard {
  joins: { memberId: string; assignment: Record<string, number[]> }[];
  joining: string[];
  crashes: Error[];
}

export function member(
  adapter: PlatformaticAdapter,
  groupId: string,
  topic: string,
  sink: RecordSink = () => undefined,
) {
  const heard: Heard = { joins: [], joining: [], crashes: [] };
  const listener: GroupConsumerListener = {
    joining: (memberId) => heard.joining.push(memberId),
    joined: (memberId, assignment) =>
      heard.joins.push({
        memberId,
        assignment: Object.fromEntries([...assignment].map(([t, p]) => [t, [...p]])),
      }),
    positioned: () => undefined,
    crashed: (error) => heard.crashes.push(error),
  };
  const consumer: GroupConsumerPort = adapter.createGroupConsumer({
    groupId,
    topics: [topic],
    fromBeginning: true,
    sink,
    listener,
  });
  return { consumer, heard };
}

/** The member ids of a KIP-848 group, sorted; [] when there is none. */
export async function membersOf(admin: Admin, groupId: string): Promise<string[]> {
  const described = await describeConsumerGroup(admin, groupId);
  return described.kind === 'consumer' ? described.members.map((m) => m.memberId).sort() : [];
}
