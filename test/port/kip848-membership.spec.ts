/**
 * The KIP-848 group consumer of the @platformatic/kafka adapter, driven through the port itself on
 * a real broker (issue #31, defects 1 and 2):
 * - every membership change reaches the engine's listener, a new member epoch with the same
 *   partitions included: a member alone again after another one left must hear of it, or its
 *   engine cannot verify again that the group is its own;
 * - the member id is reported before the broker answers the join (a member left behind by a
 *   crash is then recognised as ours), and a stop while the join is unanswered leaves no member:
 *   the broker removes a member that leaves with epoch -1 whatever its epoch.
 * Defect 3 (a member the broker may have expired reads on): port/kip848-expiry.spec.ts.
 */
import { Admin } from '@platformatic/kafka';
import {
  createTopics,
  newAdmin,
  testPrefix,
  waitFor,
  kafkaBrokers,
} from '../support/broker/kafka.js';
import { startProxiedBroker, type ProxiedBroker } from '../support/broker/proxied-broker.mjs';
import { ApiKey } from '../support/broker/tcp-proxy.js';
import { kip848Adapter, member, membersOf } from '../support/broker/kip848-port.js';

describe('KIP-848 group consumer (@platformatic/kafka) through the port', () => {
  it('reports a new member epoch with the same partitions: a member alone again after another left hears of it', async () => {
    const prefix = testPrefix('port-kip848-epoch');
    const topic = `${prefix}t`;
    const groupId = `${prefix}g`;
    const kafkajsAdmin = await newAdmin();
    await createTopics(kafkajsAdmin, [{ topic, numPartitions: 1 }]).finally(() =>
      kafkajsAdmin.disconnect(),
    );
    const adapter = kip848Adapter(kafkaBrokers(), `${prefix}client`);
    const admin = new Admin({ clientId: `${prefix}admin`, bootstrapBrokers: kafkaBrokers() });
    const a = member(adapter, groupId, topic);
    const b = member(adapter, groupId, topic);
    try {
      await a.consumer.start();
      await waitFor(() => a.heard.joins.length > 0, { message: 'A never joined' });
      expect(a.heard.joins[0]!.assignment).toEqual({ [topic]: [0] });

      // B joins (the one partition stays A's), then leaves: each moves the group's epoch.
      await b.consumer.start();
      await waitFor(() => b.heard.joins.length > 0, { message: 'B never joined' });
      await waitFor(async () => (await membersOf(admin, groupId)).length === 2, {
        message: 'B is not listed',
      });
      const heardBefore = a.heard.joins.length;
      await b.consumer.stop();
      expect(await membersOf(admin, groupId)).toEqual([a.heard.joins[0]!.memberId]);

      await waitFor(() => a.heard.joins.length > heardBefore, {
        message: `A heard ${a.heard.joins.length} membership change(s), none after B left`,
      });
      // The same member and the same partitions: only the epoch moved.
      for (const join of a.heard.joins) {
        expect(join).toEqual({
          memberId: a.heard.joins[0]!.memberId,
          assignment: { [topic]: [0] },
        });
      }
      expect(a.heard.crashes).toEqual([]);
    } finally {
      await Promise.all([a.consumer.stop(), b.consumer.stop()]);
      await adapter.disconnect();
      await admin.close();
    }
  });
});

describe('KIP-848 group consumer (@platformatic/kafka): a join the broker has not answered', () => {
  let broker: ProxiedBroker;
  let admin: Admin;

  beforeAll(async () => {
    // The broker's default KIP-848 session (45 s; the test brokers use 6 s): a member nobody
    // removes stays that long, far longer than any stop here takes.
    broker = await startProxiedBroker({
      dirPrefix: 'port-kip848-',
      properties: { 'group.consumer.session.timeout.ms': 45_000 },
    });
    admin = new Admin({ clientId: 'port-kip848-admin', bootstrapBrokers: broker.direct });
    await admin.createTopics({ topics: ['t'], partitions: 1, replicas: 1 });
  });

  afterAll(async () => {
    await admin?.close();
    await broker?.stop();
  });

  afterEach(() => {
    broker.proxy.onFrame = undefined;
  });

  /** Starts a member whose first ConsumerGroupHeartbeat the broker processes but whose answer is lost. */
  async function unansweredJoin(groupId: string) {
    let dropped = false;
    broker.proxy.onFrame = (frame) => {
      if (dropped || frame.direction !== 'response') return undefined;
      if (frame.apiKey !== ApiKey.ConsumerGroupHeartbeat) return undefined;
      dropped = true;
      return { kind: 'drop' };
    };
    const adapter = kip848Adapter(broker.proxied, `client-${groupId}`);
    const m = member(adapter, groupId, 't');
    await m.consumer.start();
    await waitFor(() => dropped, { message: 'no join answer to drop' });
    // The broker took the member in; the client never heard back.
    const members = await waitFor(
      async () => {
        const ids = await membersOf(admin, groupId);
        return ids.length === 1 ? ids : undefined;
      },
      { message: `${groupId} has no member` },
    );
    expect(m.heard.joins).toEqual([]);
    return { ...m, adapter, members };
  }

  it('a stop while the join is unanswered leaves no member behind', async () => {
    const m = await unansweredJoin('stop-unanswered');
    try {
      await m.consumer.stop();
      expect(await membersOf(admin, 'stop-unanswered')).toEqual([]);
    } finally {
      await m.adapter.disconnect();
    }
  });

  it('reports its member id before the broker answers, so a member left behind is known as ours', async () => {
    const m = await unansweredJoin('id-before-answer');
    try {
      expect(m.heard.joining).toEqual(m.members);
    } finally {
      await m.consumer.stop();
      await m.adapter.disconnect();
    }
  });
});
