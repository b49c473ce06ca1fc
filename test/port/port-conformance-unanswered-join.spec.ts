/**
 * The KafkaPort conformance suite, the one moment a plain broker cannot stage: a stop while the
 * join is unanswered (the broker took the member in; its answer never reached the client) leaves
 * no member. A private broker behind the fault proxy drops that answer, for each client row (the
 * in-memory broker answers a join in the same turn it takes the member in: its stop moments are
 * in port-conformance.spec.ts). libs/broadcast/docs/PORT-CONTRACT.md lists the fact.
 */
import { Admin } from '@platformatic/kafka';
import { waitFor } from '../support/broker/kafka.js';
import { heardMember } from '../support/port-conformance/heard-member.js';
import { realRow, type PortRow, type RealKind } from '../support/port-conformance/port-rows.js';
import { startProxiedBroker, type ProxiedBroker } from '../support/broker/proxied-broker.mjs';
import { ApiKey } from '../support/broker/tcp-proxy.js';

/**
 * The answer that tells the client it is a member: classic, the second JoinGroup answer (the
 * first one only hands out the member id, MEMBER_ID_REQUIRED, and the broker holds no member
 * yet); KIP-848, the first ConsumerGroupHeartbeat answer.
 */
const JOIN_ANSWER: Partial<Record<RealKind, { apiKey: number; nth: number }>> = {
  kafkajs: { apiKey: ApiKey.JoinGroup, nth: 2 },
  'platformatic-classic': { apiKey: ApiKey.JoinGroup, nth: 2 },
  'platformatic-consumer': { apiKey: ApiKey.ConsumerGroupHeartbeat, nth: 1 },
};

describe('KafkaPort conformance: a stop while the join is unanswered leaves no member', () => {
  let broker: ProxiedBroker;

  beforeAll(async () => {
    // KIP-848 members stay for the broker's session unless removed: 45 s, far longer than a stop
    // (classic members: the consumer's, 45 s below).
    broker = await startProxiedBroker({
      dirPrefix: 'port-conformance-',
      properties: { 'group.consumer.session.timeout.ms': 45_000 },
    });
    // A new broker has no group coordinator until its offsets topic exists: a join answered
    // COORDINATOR_NOT_AVAILABLE is retried after a backoff, not the moment staged here.
    const admin = new Admin({ clientId: 'port-conformance-warm', bootstrapBrokers: broker.direct });
    try {
      await waitFor(() => admin.findCoordinator({ keyType: 0, keys: ['warm'] }), {
        timeoutMs: 30_000,
        message: 'no group coordinator',
      });
    } finally {
      await admin.close();
    }
  });

  afterAll(async () => {
    await broker?.stop();
  });

  afterEach(() => {
    broker.proxy.onFrame = undefined;
  });

  it.each<[string, RealKind]>([
    ['kafkajs', 'kafkajs'],
    ['@platformatic/kafka classic', 'platformatic-classic'],
    ['@platformatic/kafka KIP-848', 'platformatic-consumer'],
  ])('%s', async (_name, kind) => {
    // Sessions longer than any stop here (a member nobody removed stays), requests that time out
    // sooner than the default 30 s (a client waiting for the lost answer gives up in 5 s).
    const row: PortRow = realRow(kind, broker.direct, broker.proxied, {
      sessionTimeoutMs: 45_000,
      requestTimeoutMs: 5_000,
    });
    const topic = `unanswered-${kind}`;
    const groupId = `unanswered-${kind}-g`;
    try {
      await row.createTopic(topic);
      const { apiKey, nth } = JOIN_ANSWER[kind]!;
      let seen = 0;
      let dropped = false;
      broker.proxy.onFrame = (frame) => {
        if (dropped || frame.direction !== 'response' || frame.apiKey !== apiKey) return undefined;
        if (++seen < nth) return undefined;
        dropped = true;
        return { kind: 'drop' };
      };
      const m = heardMember(row.port(`unanswered-${kind}`), groupId, topic);
      // A client's start() may wait for the join (kafkajs's does): not awaited before the stop.
      const starting = m.consumer.start();
      await waitFor(() => dropped, { message: 'no join answer to drop' });
      // The broker took the member in; the client never heard back.
      await waitFor(async () => (await row.members(groupId)).length === 1, {
        message: `${groupId} has no member`,
      });
      expect(m.joins()).toEqual([]);
      await m.consumer.stop();
      // Right after the stop: the broker drops a member nobody removed only after its session
      // or the join's rebalance timeout (45 s here), so a member gone now was removed by a leave.
      expect(await row.members(groupId)).toEqual([]);
      await starting.catch(() => undefined);
    } finally {
      await row.close();
    }
  });
});
