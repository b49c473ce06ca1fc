/**
 * The KIP-848 consumer group protocol (kafka.groupProtocol 'consumer', @platformatic/kafka) on the
 * real broker: the engine claims, deletes, joins, verifies with ConsumerGroupDescribe that its
 * member is alone (classic DescribeGroups does not see these groups), rejoins after its member is
 * fenced, and leaves no member when it stops; a foreign member makes it move, losing nothing.
 * Without the option ('auto') @platformatic/kafka takes KIP-848 on this broker and kafkajs classic;
 * 'classic' on @platformatic/kafka still joins a classic group.
 */
import { randomUUID } from 'node:crypto';
import { Admin, consumerGroupHeartbeatV1 } from '@platformatic/kafka';
import { describeConsumerGroup } from '../../libs/broadcast/src/adapters/platformatic/platformatic-consumer-group-describe.js';
import { type TestEngine, useEngineHarness } from '../support/engine/engine.js';
import { kafkaBrokers, waitFor } from '../support/broker/kafka.js';
import { brokerState } from '../../libs/broadcast/src/adapters/platformatic/platformatic-group-state.js';

const TOPIC = 'news';
const KIP848 = { client: 'platformatic', groupProtocol: 'consumer' } as const;

let admin: Admin;

beforeAll(() => {
  admin = new Admin({ clientId: 'kip848-spec', bootstrapBrokers: kafkaBrokers() });
});

afterAll(async () => {
  await admin?.close();
});

/** Member ids of a KIP-848 group; [] when there is no such group (or it is a classic one). */
async function consumerMembers(groupId: string): Promise<string[]> {
  const described = await describeConsumerGroup(admin, groupId);
  return described.kind === 'consumer' ? described.members.map((m) => m.memberId) : [];
}

/** The numbers an engine received, sorted. */
function numbers(engine: TestEngine): number[] {
  return engine
    .payloads(TOPIC)
    .map((p) => (p as { n: number }).n)
    .sort((a, b) => a - b);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

/** A raw KIP-848 member of `groupId` that heartbeats until left: another client in our group. */
async function foreignMember(groupId: string, topic: string) {
  const [coordinator] = await admin.findCoordinator({ keyType: 0, keys: [groupId] });
  const connection = await admin.connections.get(coordinator!);
  const memberId = randomUUID();
  const beat = (epoch: number) =>
    consumerGroupHeartbeatV1.api.async(
      connection,
      groupId,
      memberId,
      epoch,
      null,
      null,
      30_000,
      epoch < 0 ? [] : [topic],
      null,
      null,
      [],
    );
  let epoch = (await beat(0)).memberEpoch;
  const timer = setInterval(() => {
    beat(epoch).then(
      (r) => (epoch = r.memberEpoch),
      () => undefined,
    );
  }, 1_000);
  return {
    memberId,
    leave: async () => {
      clearInterval(timer);
      await beat(-1).catch(() => undefined);
    },
  };
}

/** Removes `memberId` from its group as the coordinator does when it expires: a leave on its behalf. */
async function fence(groupId: string, memberId: string): Promise<void> {
  const [coordinator] = await admin.findCoordinator({ keyType: 0, keys: [groupId] });
  const connection = await admin.connections.get(coordinator!);
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
}

describe('KIP-848 consumer group protocol (@platformatic/kafka)', () => {
  it('starts in a KIP-848 group of its own, receives every message published after ready, and stops leaving no member', async () => {
    const h = useEngineHarness('kip848-start');
    await h.createTopics([{ topic: TOPIC, numPartitions: 3 }]);
    const e = await h.start({ lock: 'postgres', topics: [TOPIC], kafka: KIP848 });
    const groupId = e.status().groupId!;

    const members = await consumerMembers(groupId);
    expect(members).toHaveLength(1);
    // Classic DescribeGroups does not see the group: only ConsumerGroupDescribe proves exclusivity.
    const classic = (await admin.describeGroups({ groups: [groupId] })).get(groupId);
    expect(brokerState(classic?.state ?? '')).toBe('Dead');

    await Promise.all(
      range(0, 60).map((n) => e.engine.publisher.publish(TOPIC, { n }, { key: `k${n}` })),
    );
    await waitFor(() => e.payloads(TOPIC).length >= 60, {
      message: `received ${e.payloads(TOPIC).length} of 60`,
    });
    expect(numbers(e)).toEqual(range(0, 60));

    await h.stopEngine(e);
    expect(await consumerMembers(groupId)).toEqual([]);
  });

  it('refuses to share: two lock-free engines starting at once end in distinct groups, each alone and each receiving everything', async () => {
    const h = useEngineHarness('kip848-contend');
    await h.createTopics([{ topic: TOPIC, numPartitions: 3 }]);
    const engines = await h.startMany(2, { lock: 'none', topics: [TOPIC], kafka: KIP848 });
    await h.allReady(engines);
    const groups = engines.map((e) => e.status().groupId!);
    expect(new Set(groups).size).toBe(2);
    for (const g of groups) expect(await consumerMembers(g)).toHaveLength(1);

    await Promise.all(
      range(0, 40).map((n) =>
        engines[n % 2]!.engine.publisher.publish(TOPIC, { n }, { key: `k${n}` }),
      ),
    );
    await waitFor(() => engines.every((e) => e.payloads(TOPIC).length >= 40), {
      message: `received ${engines.map((e) => e.payloads(TOPIC).length).join(', ')} of 40`,
    });
    for (const e of engines) expect(numbers(e)).toEqual(range(0, 40));
  });

  it('sees a foreign member by ConsumerGroupDescribe, gives the group up and moves, losing nothing', async () => {
    const h = useEngineHarness('kip848-foreign');
    await h.createTopics([{ topic: TOPIC, numPartitions: 3 }]);
    const e = await h.start({ lock: 'postgres', topics: [TOPIC], kafka: KIP848 });
    const groupId = e.status().groupId!;
    await Promise.all(range(0, 20).map((n) => e.engine.publisher.publish(TOPIC, { n })));

    const foreign = await foreignMember(groupId, h.topic(TOPIC));
    try {
      // The foreign member takes partitions away: the engine verifies again, waits its grace, leaves.
      await waitFor(() => e.status().groupId !== groupId && e.status().state === 'ready', {
        timeoutMs: 30_000,
        message: `still in ${e.status().groupId} (${e.status().state})`,
      });
      expect(await consumerMembers(groupId)).toEqual([foreign.memberId]);
    } finally {
      await foreign.leave();
    }
    await Promise.all(range(20, 40).map((n) => e.engine.publisher.publish(TOPIC, { n })));
    await waitFor(() => e.payloads(TOPIC).length >= 40, {
      message: `received ${e.payloads(TOPIC).length} of 40`,
    });
    expect(numbers(e)).toEqual(range(0, 40));
  });

  it('rejoins after its member is fenced (removed by the coordinator), losing nothing', async () => {
    const h = useEngineHarness('kip848-fenced');
    await h.createTopics([{ topic: TOPIC, numPartitions: 3 }]);
    const e = await h.start({ lock: 'postgres', topics: [TOPIC], kafka: KIP848 });
    const groupId = e.status().groupId!;
    const [first] = await consumerMembers(groupId);
    await Promise.all(range(0, 20).map((n) => e.engine.publisher.publish(TOPIC, { n })));
    await waitFor(() => e.payloads(TOPIC).length >= 20);

    await fence(groupId, first!);
    await Promise.all(range(20, 40).map((n) => e.engine.publisher.publish(TOPIC, { n })));
    // Its next heartbeat is refused (UNKNOWN_MEMBER_ID): the engine joins again with a new member.
    const rejoined = await waitFor(
      async () => {
        const members = await consumerMembers(groupId);
        return members.length === 1 && members[0] !== first && e.status().state === 'ready'
          ? members[0]
          : undefined;
      },
      { timeoutMs: 30_000, message: `no new member in ${groupId} (${e.status().state})` },
    );
    expect(rejoined).not.toBe(first);
    expect(e.status().groupId).toBe(groupId);
    await Promise.all(range(40, 60).map((n) => e.engine.publisher.publish(TOPIC, { n })));
    await waitFor(() => e.payloads(TOPIC).length >= 60, {
      message: `received ${e.payloads(TOPIC).length} of 60`,
    });
    expect(numbers(e)).toEqual(range(0, 60));
  });
});

describe('the group protocol without kafka.groupProtocol, and classic by choice', () => {
  it("by default ('auto') @platformatic/kafka joins a KIP-848 group on a broker that offers it, kafkajs a classic one", async () => {
    const h = useEngineHarness('kip848-default');
    await h.createTopics([{ topic: TOPIC, numPartitions: 2 }]);
    const [kip848, classic] = await Promise.all([
      h.start({ lock: 'none', topics: [TOPIC], kafka: { client: 'platformatic' } }),
      h.start({ lock: 'none', topics: [TOPIC], kafka: { client: 'kafkajs' } }),
    ]);
    const [g848, gClassic] = [kip848!.status().groupId!, classic!.status().groupId!];
    expect(await consumerMembers(g848)).toHaveLength(1);
    expect(
      brokerState((await admin.describeGroups({ groups: [g848] })).get(g848)?.state ?? ''),
    ).toBe('Dead');
    const described = (await admin.describeGroups({ groups: [gClassic] })).get(gClassic);
    expect(brokerState(described?.state ?? '')).toBe('Stable');
    expect([...described!.members.keys()]).toHaveLength(1);

    await Promise.all(range(0, 20).map((n) => kip848!.engine.publisher.publish(TOPIC, { n })));
    await waitFor(
      () => kip848!.payloads(TOPIC).length >= 20 && classic!.payloads(TOPIC).length >= 20,
      {
        message: `received ${kip848!.payloads(TOPIC).length} and ${classic!.payloads(TOPIC).length} of 20`,
      },
    );
    expect(numbers(kip848!)).toEqual(range(0, 20));
    expect(numbers(classic!)).toEqual(range(0, 20));
  });

  it("'classic' on @platformatic/kafka joins a classic group: DescribeGroups lists its one member, ConsumerGroupDescribe none", async () => {
    const h = useEngineHarness('kip848-classic');
    await h.createTopics([{ topic: TOPIC, numPartitions: 2 }]);
    const e = await h.start({
      lock: 'postgres',
      topics: [TOPIC],
      kafka: { client: 'platformatic', groupProtocol: 'classic' },
    });
    const groupId = e.status().groupId!;
    const described = (await admin.describeGroups({ groups: [groupId] })).get(groupId);
    expect(brokerState(described?.state ?? '')).toBe('Stable');
    expect([...described!.members.keys()]).toHaveLength(1);
    expect(await consumerMembers(groupId)).toEqual([]);

    await Promise.all(range(0, 20).map((n) => e.engine.publisher.publish(TOPIC, { n })));
    await waitFor(() => e.payloads(TOPIC).length >= 20, {
      message: `received ${e.payloads(TOPIC).length} of 20`,
    });
    expect(numbers(e)).toEqual(range(0, 20));
    await h.stopEngine(e);
    const after = (await admin.describeGroups({ groups: [groupId] })).get(groupId);
    expect(brokerState(after?.state ?? '')).not.toBe('Stable');
  });
});
