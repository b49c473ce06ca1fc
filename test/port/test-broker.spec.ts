// Proves the test infrastructure itself: a real broker answers and kafkajs can round-trip a
// message on it. scripts/kafka-cluster.mjs's 3-node cluster is proven where it is used: replicated
// topics, and every node stopped and started again on its own ports (the instances keep only the
// first bootstrap list) in test/faults/rolling-restart.spec.ts; a node killed and started again in
// test/faults/coordinator-failover.spec.ts. (A test of its own here cost about a minute.)
import type { Admin } from 'kafkajs';
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
