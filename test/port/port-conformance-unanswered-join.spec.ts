/**
 * The KafkaPort conformance suite, the moments a plain broker cannot stage (fact 6, stop at any
 * moment leaves no member): a stop while the join is unanswered (the broker took the member in;
 * its answer never reached the client), and a stop between an answered JoinGroup and its
 * SyncGroup (the classic leader asks for metadata in between). A private broker behind the fault
 * proxy holds those answers back, for each client row (the in-memory broker answers a join in the
 * same turn it takes the member in: its stop moments are in port-conformance.spec.ts).
 * libs/broadcast/docs/PORT-CONTRACT.md lists the fact.
 */
import { Admin } from '@platformatic/kafka';
import { waitFor } from '../support/broker/kafka.js';
import { heardMember } from '../support/port-conformance/heard-member.js';
import { realRow, type PortRow, type RealKind } from '../support/port-conformance/port-rows.js';
import { startProxiedBroker, type ProxiedBroker } from '../support/broker/proxied-broker.mjs';
import { ApiKey, type FrameInfo } from '../support/broker/tcp-proxy.js';

/**
 * The answer that tells the client it is a member: classic, the second JoinGroup answer (the
 * first one only hands out the member id, MEMBER_ID_REQUIRED, and the broker holds no member
 * yet); KIP-848, the first ConsumerGroupHeartbeat answer.
 */
const JOIN_ANSWER: Partial<Record<RealKind, { apiKey: number; nth: number }>> = {
  kafkajs: { apiKey: ApiKey.JoinGroup, nth: 2 },
  'platformatic-classic': { apiKey: ApiKey.JoinGroup, nth: 2 },
  'platformatic-consumer': { apiKey: ApiKey.ConsumerGroupHeartbeat, nth: 1 },
  'confluent-classic': { apiKey: ApiKey.JoinGroup, nth: 2 },
};

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

/**
 * A row on the private broker: sessions longer than any stop here (a member nobody removed
 * stays), requests that time out sooner than the default 30 s (a client waiting for a lost answer
 * gives up in 5 s).
 */
function rowOf(kind: RealKind): PortRow {
  return realRow(kind, broker.direct, broker.proxied, {
    sessionTimeoutMs: 45_000,
    requestTimeoutMs: 5_000,
  });
}

/**
 * Starts a member of a fresh group whose start the proxy holds at a moment (`hold` says which
 * frame to drop: it is called for every frame until it answers true once), stops it there, and
 * returns the members the broker holds right after the stop, and for how long the stop ran. The
 * broker drops a member nobody removed only after its session or the join's rebalance timeout
 * (45 s here), so a member gone right after the stop was removed by a leave.
 */
async function stopWhileHeld(
  kind: RealKind,
  name: string,
  hold: (frame: FrameInfo) => boolean,
): Promise<{ members: string[]; stopMs: number; joins: unknown[] }> {
  const row = rowOf(kind);
  const topic = `${name}-${kind}`;
  const groupId = `${name}-${kind}-g`;
  try {
    await row.createTopic(topic);
    let dropped = false;
    broker.proxy.onFrame = (frame) => {
      if (dropped || !hold(frame)) return undefined;
      dropped = true;
      return { kind: 'drop' };
    };
    const m = heardMember(row.port(`${name}-${kind}`), groupId, topic);
    // A client's start() may wait for the join (kafkajs's does): not awaited before the stop.
    const starting = m.consumer.start();
    await waitFor(() => dropped, { message: 'the moment never came' });
    // The broker took the member in; the client never completed its join.
    await waitFor(async () => (await row.members(groupId)).length === 1, {
      message: `${groupId} has no member`,
    });
    const stopStarted = Date.now();
    await m.consumer.stop();
    const stopMs = Date.now() - stopStarted;
    const members = await row.members(groupId);
    await starting.catch(() => undefined);
    return { members, stopMs, joins: m.joins() };
  } finally {
    await row.close();
  }
}

describe('KafkaPort conformance: a stop while the join is unanswered leaves no member', () => {
  it.each<[string, RealKind]>([
    ['kafkajs', 'kafkajs'],
    ['@platformatic/kafka classic', 'platformatic-classic'],
    ['@platformatic/kafka KIP-848', 'platformatic-consumer'],
    ['@confluentinc/kafka-javascript classic', 'confluent-classic'],
  ])('%s', async (_name, kind) => {
    const { apiKey, nth } = JOIN_ANSWER[kind]!;
    let seen = 0;
    const outcome = await stopWhileHeld(
      kind,
      'unanswered',
      (frame) => frame.direction === 'response' && frame.apiKey === apiKey && ++seen >= nth,
    );
    expect(outcome.joins).toEqual([]);
    expect(outcome.members).toEqual([]);
  });
});

describe('KafkaPort conformance: a stop between an answered JoinGroup and its SyncGroup leaves no member', () => {
  // kafkajs's leader refreshes the cluster's metadata between the two (consumerGroup.js 219): the
  // Metadata answer after the JoinGroup answer is held. @platformatic/kafka's leader uses the
  // metadata it has, so its SyncGroup request itself is held (the broker never sees it). KIP-848
  // has no JoinGroup.
  it.each<[string, RealKind, number]>([
    ['kafkajs', 'kafkajs', ApiKey.Metadata],
    ['@platformatic/kafka classic', 'platformatic-classic', ApiKey.SyncGroup],
    ['@confluentinc/kafka-javascript classic', 'confluent-classic', ApiKey.SyncGroup],
  ])('%s', async (_name, kind, held) => {
    let joinAnswers = 0;
    const outcome = await stopWhileHeld(kind, 'join-sync', (frame) => {
      if (frame.direction === 'response' && frame.apiKey === ApiKey.JoinGroup) joinAnswers++;
      // The second JoinGroup answer takes the member in (the first hands out its id).
      if (joinAnswers < 2 || frame.apiKey !== held) return false;
      return frame.direction === (held === ApiKey.SyncGroup ? 'request' : 'response');
    });
    expect(outcome.joins).toEqual([]);
    expect(outcome.members).toEqual([]);
  });
});
