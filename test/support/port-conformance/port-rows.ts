// The rows of the port conformance suite (test/port/port-conformance.spec.ts): each KafkaPort
// implementation with the broker-side tools a test needs to arrange a fact and read its outcome.
// The real-broker rows use the shared test broker (KAFKA_BROKERS) and never mock it.
import { Admin, consumerGroupHeartbeatV1, leaveGroupV3 } from '@platformatic/kafka';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { describeConsumerGroup } from '../../../libs/broadcast/src/adapters/platformatic/platformatic-consumer-group-describe.js';
import { PlatformaticAdapter } from '../../../libs/broadcast/src/adapters/platformatic/platformatic.adapter.js';
import { ConfluentAdapter } from '../../../libs/broadcast/src/adapters/confluent/confluent.adapter.js';
import { KafkajsAdapter } from '../../../libs/broadcast/src/adapters/kafkajs/kafkajs.adapter.js';
import type { KafkaPort } from '../../../libs/broadcast/src/interfaces/kafka-port.interface.js';
import { InMemoryKafka } from '../../../libs/broadcast/src/testing/in-memory-kafka.js';
import { createTopics, kafkaBrokers, waitFor } from '../broker/kafka.js';

/** One implementation of the port, and the broker it runs on as the tests see it. */
export interface PortRow {
  readonly name: string;
  /** A new port (a new client) on this row's broker. */
  port(clientId: string): KafkaPort;
  createTopic(topic: string): Promise<void>;
  /** Appends plain records (values) to partition 0. */
  produce(topic: string, values: string[]): Promise<void>;
  /**
   * Appends `value` in a committed transaction, then an aborted one: 4 offsets of partition 0,
   * of which the consumer hands over only `value` (the markers and the aborted record are filtered).
   */
  produceFiltered(topic: string, value: string): Promise<void>;
  /** The group's committed offsets of the topic, per partition ('-1': none). */
  committed(groupId: string, topic: string): Promise<string[]>;
  /** How many offsets partition 0 of the topic holds (its high watermark). */
  high(topic: string): Promise<number>;
  /** The member ids the broker holds in the group now. */
  members(groupId: string): Promise<string[]>;
  /** The coordinator removes the member (as when it fences it or its session expires). */
  fence(groupId: string, memberId: string): Promise<void>;
  /**
   * Resolves once the broker has a group coordinator: a fresh broker creates its offsets topic
   * on the first lookup and answers COORDINATOR_NOT_AVAILABLE until then, which the clients
   * retry after a backoff, so a first join can outlast a test's wait.
   */
  ready(): Promise<void>;
  close(): Promise<void>;
}

const SILENT = { log: () => undefined, warn: () => undefined, error: () => undefined };
const TIMINGS = {
  sessionTimeoutMs: 6_000,
  heartbeatIntervalMs: 500,
  maxWaitTimeMs: 100,
  metadataMaxAgeMs: 300_000,
};
const TOPICS = { numPartitions: 1, replicationFactor: 1 };

export function inMemoryRow(): PortRow {
  const broker = new InMemoryKafka();
  return {
    name: 'in-memory broker',
    port: () => broker.port(),
    createTopic: async (topic) => broker.createTopic(topic, 1),
    produce: async (topic, values) =>
      broker.append(
        topic,
        values.map((value) => ({ key: null, value })),
      ),
    produceFiltered: async (topic, value) => {
      broker.append(topic, [{ key: null, value }]);
      broker.appendFiltered(topic, 0, 3);
    },
    // The in-memory broker has no commits at all.
    committed: async () => ['-1'],
    high: async (topic) => broker.partitions(topic)?.[0]?.high ?? 0,
    members: async (groupId) => broker.members(groupId) ?? [],
    fence: async (groupId, memberId) => broker.fence(groupId, memberId),
    ready: async () => undefined,
    close: async () => undefined,
  };
}

type RealKind =
  | 'kafkajs'
  | 'platformatic-classic'
  | 'platformatic-consumer'
  | 'confluent-classic'
  | 'confluent-consumer';

export type { RealKind };

/**
 * A row on a real broker (the shared one by default): kafkajs, or @platformatic/kafka on the
 * classic or KIP-848 protocol. The test's own clients use `brokers`; the ports `portBrokers`
 * (a fault proxy's address, say).
 */
export function realRow(
  kind: RealKind,
  brokers = kafkaBrokers(),
  portBrokers = brokers,
  tuning: { sessionTimeoutMs?: number; requestTimeoutMs?: number } = {},
): PortRow {
  const admin = new Admin({ clientId: `port-conformance-${kind}`, bootstrapBrokers: brokers });
  const clientId = `port-conformance-${kind}`;
  const kafka = new Kafka({ clientId, brokers, logLevel: logLevel.NOTHING });
  const withAdmin = async <T>(use: (a: ReturnType<Kafka['admin']>) => Promise<T>) => {
    const kafkajsAdmin = kafka.admin();
    await kafkajsAdmin.connect();
    return use(kafkajsAdmin).finally(() => kafkajsAdmin.disconnect());
  };
  const kip848 = kind.endsWith('-consumer');
  let producer: Promise<Producer> | undefined;
  let transactional: Promise<Producer> | undefined;
  const connected = (p: Producer) => p.connect().then(() => p);
  const ports: KafkaPort[] = [];

  async function coordinatorConnection(groupId: string) {
    const [coordinator] = await admin.findCoordinator({ keyType: 0, keys: [groupId] });
    return admin.connections.get(coordinator!);
  }

  return {
    name: kind,
    ready: async () => {
      await waitFor(() => admin.findCoordinator({ keyType: 0, keys: ['port-conformance-ready'] }), {
        timeoutMs: 60_000,
        message: 'the broker has no group coordinator',
      });
    },
    port: (clientId) => {
      const groupProtocol = kind === 'kafkajs' ? undefined : kip848 ? 'consumer' : 'classic';
      const { sessionTimeoutMs = TIMINGS.sessionTimeoutMs, requestTimeoutMs } = tuning;
      const options = {
        kafka: { brokers: portBrokers, clientId, groupProtocol, requestTimeoutMs },
        consumer: { ...TIMINGS, sessionTimeoutMs },
        topics: TOPICS,
      } as const;
      const port =
        kind === 'kafkajs'
          ? new KafkajsAdapter(options, SILENT)
          : kind.startsWith('confluent')
            ? new ConfluentAdapter(options, SILENT)
            : new PlatformaticAdapter(options, SILENT);
      ports.push(port);
      return port;
    },
    createTopic: (topic) => withAdmin((a) => createTopics(a, [{ topic, numPartitions: 1 }])),
    produce: async (topic, values) => {
      const p = await (producer ??= connected(kafka.producer()));
      await p.send({ topic, acks: -1, messages: values.map((value) => ({ value })) });
    },
    produceFiltered: async (topic, value) => {
      const transactionalId = `port-conformance-${kind}-${Date.now()}`;
      const p = await (transactional ??= connected(
        kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 }),
      ));
      const committed = await p.transaction();
      await committed.send({ topic, messages: [{ value, partition: 0 }] });
      await committed.commit();
      const aborted = await p.transaction();
      await aborted.send({ topic, messages: [{ value: `${value}-aborted`, partition: 0 }] });
      await aborted.abort();
    },
    committed: (groupId, topic) =>
      withAdmin(async (a) => {
        const [offsets] = await a.fetchOffsets({ groupId, topics: [topic] });
        return (offsets?.partitions ?? []).map((p) => p.offset);
      }),
    high: (topic) =>
      withAdmin(async (a) => {
        const partitions = await a.fetchTopicOffsets(topic);
        return Number(partitions.find((p) => p.partition === 0)?.high ?? 0);
      }),
    members: async (groupId) => {
      if (kip848) {
        const described = await describeConsumerGroup(admin, groupId);
        return described.kind === 'consumer' ? described.members.map((m) => m.memberId) : [];
      }
      const groups = await admin.describeGroups({ groups: [groupId] });
      return [...(groups.get(groupId)?.members.keys() ?? [])];
    },
    fence: async (groupId, memberId) => {
      const connection = await coordinatorConnection(groupId);
      if (!kip848) {
        await leaveGroupV3.api.async(connection, groupId, [{ memberId, groupInstanceId: null }]);
        return;
      }
      // A leave (epoch -1) on the member's behalf: the coordinator removes it, as on expiry.
      await consumerGroupHeartbeatV1.api.async(
        connection,
        groupId,
        memberId,
        -1,
        null,
        null,
        0,
        [],
        null,
        null,
        [],
      );
    },
    close: async () => {
      await Promise.all(ports.map((p) => p.disconnect().catch(() => undefined)));
      for (const p of [producer, transactional])
        await (await p?.catch(() => undefined))?.disconnect();
      await admin.close();
    },
  };
}

/** Every row, named: the in-memory broker and the client rows (each protocol) on the real broker. */
export const PORT_ROWS: readonly [string, () => PortRow][] = [
  ['in-memory broker', inMemoryRow],
  ['kafkajs', () => realRow('kafkajs')],
  ['@platformatic/kafka classic', () => realRow('platformatic-classic')],
  ['@platformatic/kafka KIP-848', () => realRow('platformatic-consumer')],
  ['@confluentinc/kafka-javascript classic', () => realRow('confluent-classic')],
  ['@confluentinc/kafka-javascript KIP-848', () => realRow('confluent-consumer')],
];
