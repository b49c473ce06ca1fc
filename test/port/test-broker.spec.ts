// Proves the test infrastructure itself: a real broker answers, kafkajs can round-trip a
// message on it, and scripts/kafka-cluster.mjs can run (and heal) a 3-node cluster.
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { startCluster, type KafkaCluster } from '../../scripts/kafka-cluster.mjs';
import {
  createTopics,
  kafkaBrokers,
  newAdmin,
  newKafka,
  testPrefix,
  waitFor,
} from '../support/broker/kafka.js';

describe('the run broker', () => {
  let admin: Admin;
  const topic = `${testPrefix('broker')}roundtrip`;

  beforeAll(async () => {
    admin = await newAdmin();
  });

  afterAll(async () => {
    // Only if a failed test left it behind: kafkajs retries deleting an unknown topic for ~10 s.
    if ((await admin?.listTopics())?.includes(topic)) await admin.deleteTopics({ topics: [topic] });
    await admin?.disconnect();
  });

  it('answers describeCluster', async () => {
    const { brokers } = await admin.describeCluster();
    expect(brokers.map((b) => `${b.host}:${b.port}`)).toEqual(
      expect.arrayContaining([kafkaBrokers()[0]]),
    );
  });

  it('round-trips a message through a topic under the run prefix', async () => {
    expect(topic).toMatch(/^bt\.r[a-z0-9]+\.broker\.roundtrip$/);
    await createTopics(admin, [{ topic, numPartitions: 1 }]);

    const kafka = newKafka();
    const producer = kafka.producer();
    const consumer = kafka.consumer({
      groupId: `${testPrefix('broker')}group`,
      maxWaitTimeInMs: 200,
    });
    const received: string[] = [];
    try {
      await producer.connect();
      await producer.send({
        topic,
        messages: [{ key: 'k', value: 'hello kafka' }],
      });
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => void received.push(String(message.value)),
      });
      await waitFor(() => received.length > 0, {
        timeoutMs: 30_000,
        message: 'message not consumed',
      });
      expect(received).toEqual(['hello kafka']);
    } finally {
      await consumer.disconnect();
      await producer.disconnect();
    }
    await admin.deleteTopics({ topics: [topic] });
    await waitFor(async () => !(await admin.listTopics()).includes(topic), {
      message: `${topic} not deleted`,
    });
  });
});

describe('startCluster({ nodes: 3 })', () => {
  let cluster: KafkaCluster | undefined;
  let admin: Admin | undefined;

  beforeAll(async () => {
    cluster = await startCluster({ nodes: 3, quiet: true });
    const kafka = new Kafka({
      clientId: 'three-nodes',
      brokers: cluster.brokers,
      logLevel: logLevel.NOTHING,
    });
    admin = kafka.admin();
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.disconnect();
    await cluster?.stop();
  });

  it('runs three brokers on loopback that hold a topic with 3 replicas', async () => {
    const c = cluster!;
    expect(c.brokers).toHaveLength(3);
    expect(c.brokers.every((b) => /^127\.0\.0\.1:\d+$/.test(b))).toBe(true);
    const topic = `${testPrefix('three-nodes')}replicated`;
    await createTopics(admin!, [{ topic, numPartitions: 1, replicationFactor: 3 }]);
    // Each broker learns of the topic from the controller on its own; ask until the one asked knows.
    const replicas = await waitFor(
      async () => {
        const { topics } = await admin!.fetchTopicMetadata({ topics: [topic] });
        return topics[0]?.partitions[0]?.replicas;
      },
      { timeoutMs: 30_000, message: `no metadata for ${topic}` },
    );
    expect([...replicas].sort()).toEqual([1, 2, 3]);
  });

  it('restarts a killed node with its ports and data', async () => {
    const c = cluster!;
    const before = c.nodes.find((n) => n.id === 3)!;
    await c.killNode(3);
    await c.startNode(3);
    const after = c.nodes.find((n) => n.id === 3)!;
    expect(after.port).toBe(before.port);
    expect(after.pid).not.toBe(before.pid);
    await waitFor(async () => (await admin!.describeCluster()).brokers.length === 3, {
      timeoutMs: 30_000,
      message: 'node 3 did not rejoin',
    });
  });
});
