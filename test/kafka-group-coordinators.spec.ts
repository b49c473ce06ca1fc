/**
 * The admin adapter's group calls on the real broker: deleteGroup answers deleted / non-empty /
 * not-found, describeGroup lists the live member, and the requests on the wire are kafkajs's own
 * admin calls: its admin re-reads the cluster's metadata before every DeleteGroups and looks the
 * coordinator up for every call. (Until #22 the adapter went straight to a coordinator found once
 * through kafkajs internals; the bench measured one request and under a millisecond saved per
 * call, see docs/RELIABILITY.md.) The adapter's requests (by its client id) are counted by
 * wrapping kafkajs's Connection.send.
 */
import { createRequire } from 'node:module';
import type { Consumer } from 'kafkajs';
import { KafkajsAdmin } from '../libs/broadcast/src/kafka/kafkajs-admin.js';
import { createTopics, newAdmin, newKafka, testPrefix, waitFor } from './support/kafka.js';

const API = { 3: 'Metadata', 10: 'FindCoordinator', 15: 'DescribeGroups', 42: 'DeleteGroups' };
const require = createRequire(import.meta.url);
const Connection = require('kafkajs/src/network/connection.js') as {
  prototype: {
    clientId: string;
    send(request: { request: { apiKey: number } }): Promise<unknown>;
  };
};

describe('KafkajsAdmin group calls on the real broker', () => {
  const prefix = testPrefix('group-coordinators');
  const topic = `${prefix}t`;
  const sent: string[] = [];
  const send = Connection.prototype.send;
  let consumer: Consumer | undefined;
  const clientId = `${prefix}adapter`;
  const adapter = new KafkajsAdmin(newKafka(clientId), { numPartitions: 1, replicationFactor: 1 });

  beforeAll(async () => {
    const admin = await newAdmin();
    try {
      await createTopics(admin, [{ topic, numPartitions: 1 }]);
    } finally {
      await admin.disconnect();
    }
    Connection.prototype.send = function (this: { clientId: string }, request) {
      const name = API[request.request.apiKey as keyof typeof API];
      if (name && this.clientId === clientId) sent.push(name);
      return send.call(this, request);
    };
  });

  afterAll(async () => {
    Connection.prototype.send = send;
    await consumer?.disconnect();
    const admin = await newAdmin();
    try {
      const groups = (await admin.listGroups()).groups.map((g) => g.groupId);
      const ours = groups.filter((g) => g.startsWith(prefix));
      if (ours.length > 0) await admin.deleteGroups(ours);
      await admin.deleteTopics({ topics: [topic] });
    } finally {
      await admin.disconnect();
      await adapter.disconnect();
    }
  });

  it('answers not-found, non-empty and deleted, and describes the member, through the public admin calls', async () => {
    const groupId = `${prefix}g`;
    const deadline = Date.now() + 30_000;
    await adapter.ensureTopics([topic]);

    sent.length = 0;
    await expect(adapter.deleteGroup(groupId, deadline)).resolves.toBe('not-found');
    await expect(adapter.describeGroup(groupId)).resolves.toEqual({
      state: 'Dead',
      memberIds: [],
    });
    const deleting = ['Metadata', 'FindCoordinator', 'DeleteGroups'];
    const describing = ['FindCoordinator', 'DescribeGroups'];
    expect(sent).toEqual([...deleting, ...describing]);

    consumer = newKafka().consumer({ groupId, maxWaitTimeInMs: 100 });
    let memberId = '';
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => (memberId = payload.memberId));
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: async () => undefined });
    await waitFor(() => memberId !== '', { timeoutMs: 30_000, message: 'consumer never joined' });

    sent.length = 0;
    await expect(adapter.deleteGroup(groupId, deadline)).resolves.toBe('non-empty');
    await expect(adapter.describeGroup(groupId)).resolves.toEqual({
      state: 'Stable',
      memberIds: [memberId],
    });
    await consumer.disconnect();
    consumer = undefined;
    await expect(adapter.deleteGroup(groupId, deadline)).resolves.toBe('deleted');
    await expect(adapter.describeGroup(groupId)).resolves.toMatchObject({ memberIds: [] });
    // Nothing is remembered between calls: each one looks the coordinator up again.
    expect(sent).toEqual([...deleting, ...describing, ...deleting, ...describing]);
  });
});
