/**
 * The operator CLI on KIP-848 groups (kafka.groupProtocol 'consumer'), built and spawned against
 * the real broker. Classic DescribeGroups answers 'Dead', no members, for these groups. On
 * @platformatic/kafka the CLI asks ConsumerGroupDescribe: `pool` lists the member, `roster` the
 * instance (its info travels as the member's rack id), `cleanup` keeps the live group and deletes
 * the empty leftover. kafkajs cannot send ConsumerGroupDescribe: its `pool` and `cleanup` say the
 * state is unknown (never empty), keep the groups, and name --client platformatic.
 */
import { randomUUID } from 'node:crypto';
import { Admin, consumerGroupHeartbeatV1, offsetCommitV9 } from '@platformatic/kafka';
import { describeConsumerGroup } from '../../libs/broadcast/src/adapters/platformatic/platformatic-consumer-group-describe.js';
import { cliEntry, runCli } from '../support/package/cli.js';
import { useEngineHarness } from '../support/engine/engine.js';
import { kafkaBrokers } from '../support/broker/kafka.js';

const TOPIC = 'news';
const KIP848 = { client: 'platformatic', groupProtocol: 'consumer' } as const;
const HINT = '--client platformatic';

interface PoolJson {
  groups: {
    groupId: string;
    id: number;
    state: string;
    members: { memberId: string; clientId: string; host: string; instance: string | null }[] | null;
  }[];
}

interface CleanupJson {
  dryRun: boolean;
  groups: { groupId: string; state: string; reason: string; action: string }[];
}

let admin: Admin;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// The build runs synchronously: do it before any engine runs, or their Kafka sessions expire.
beforeAll(() => {
  cliEntry();
  admin = new Admin({ clientId: 'cli-kip848-spec', bootstrapBrokers: kafkaBrokers() });
}, 300_000);

afterAll(async () => {
  await admin?.close();
});

/**
 * An empty KIP-848 group: a raw member joins it (ConsumerGroupHeartbeat) and leaves, then an
 * offset is committed to the empty group. Without an offset the broker removes an empty group at
 * its next periodic cleanup (every offsets.retention.check.interval.ms, 10 minutes by default),
 * which once fell inside this test (a clean-clone CI run, 2026-12-07): the leftover must outlive
 * the test's CLI runs, as a real leftover with offsets does.
 */
async function emptyConsumerGroup(groupId: string, topic: string): Promise<void> {
  const [coordinator] = await admin.findCoordinator({ keyType: 0, keys: [groupId] });
  const connection = await admin.connections.get(coordinator!);
  const memberId = randomUUID();
  const beat = (epoch: number, topics: string[]) =>
    consumerGroupHeartbeatV1.api.async(
      connection,
      groupId,
      memberId,
      epoch,
      null,
      null,
      30_000,
      topics,
      null,
      null,
      [],
    );
  await beat(0, [topic]);
  await beat(-1, []);
  // Epoch -1 and no member id: a commit from outside the group, accepted while it is empty.
  const committed = await offsetCommitV9.api.async(connection, groupId, -1, '', null, [
    {
      name: topic,
      partitions: [{ partitionIndex: 0, committedOffset: 0n, committedLeaderEpoch: -1 }],
    },
  ]);
  expect(committed.topics.flatMap((t) => t.partitions.map((p) => p.errorCode))).toEqual([0]);
}

describe('nestjs-kafka-broadcast pool / roster / cleanup on KIP-848 groups', () => {
  it('platformatic describes them with ConsumerGroupDescribe; kafkajs says their state is unknown', async () => {
    const h = useEngineHarness('cli-kip848');
    await h.createTopics([{ topic: TOPIC, numPartitions: 1 }]);
    const e = await h.start({ lock: 'postgres', topics: [TOPIC], kafka: KIP848 });
    const live = e.status().groupId!;
    const leftover = h.groupName('postgres', 50);
    await emptyConsumerGroup(leftover, h.topic(TOPIC));
    expect(await describeConsumerGroup(admin, leftover)).toMatchObject({
      kind: 'consumer',
      state: 'Empty',
      members: [],
    });
    const common = ['--prefix', h.prefix, '--json'];

    // kafkajs: DescribeGroups answers 'Dead' with no members; the CLI must not call them empty.
    const kafkajs = ['--client', 'kafkajs', ...common];
    const jsPool = await runCli(['pool', ...kafkajs]);
    expect(jsPool.code, jsPool.stderr).toBe(0);
    const jsGroups = (JSON.parse(jsPool.stdout) as PoolJson).groups;
    expect(jsGroups.map((g) => [g.groupId, g.state, g.members])).toEqual([
      [live, 'Unknown', null],
      [leftover, 'Unknown', null],
    ]);
    expect(jsPool.stderr).toContain(HINT);
    const jsTable = await runCli(['pool', '--client', 'kafkajs', '--prefix', h.prefix]);
    expect(jsTable.code, jsTable.stderr).toBe(0);
    expect(jsTable.stdout).toMatch(
      new RegExp(`^${escape(live)}\\s+\\d+\\s+Unknown\\s+\\?\\s`, 'm'),
    );
    expect(jsTable.stdout).toContain(
      '2 groups: 0 with one member, 0 with several, 0 empty, 2 of unknown state (see the warning)',
    );
    const jsRoster = await runCli(['roster', ...kafkajs]);
    expect(jsRoster.code, jsRoster.stderr).toBe(0);
    expect(JSON.parse(jsRoster.stdout)).toEqual([]);
    expect(jsRoster.stderr).toContain(HINT);
    const jsCleanup = await runCli(['cleanup', ...kafkajs, '--yes']);
    expect(jsCleanup.code, jsCleanup.stderr).toBe(0);
    const jsPlan = (JSON.parse(jsCleanup.stdout) as CleanupJson).groups;
    expect(jsPlan.map((g) => [g.groupId, g.state, g.action])).toEqual([
      [live, 'Unknown', 'kept'],
      [leftover, 'Unknown', 'kept'],
    ]);
    for (const g of jsPlan) expect(g.reason).toContain(HINT);
    expect(await describeConsumerGroup(admin, leftover)).toMatchObject({ kind: 'consumer' });

    // @platformatic/kafka: ConsumerGroupDescribe.
    const platformatic = ['--client', 'platformatic', ...common];
    const pool = await runCli(['pool', ...platformatic]);
    expect(pool.code, pool.stderr).toBe(0);
    expect((JSON.parse(pool.stdout) as PoolJson).groups).toEqual([
      {
        groupId: live,
        base: expect.any(String),
        id: e.status().lockId,
        state: 'Stable',
        members: [
          {
            memberId: expect.any(String),
            clientId: `cli-kip848-${e.name}`,
            host: expect.any(String),
            instance: e.name,
          },
        ],
      },
      { groupId: leftover, base: expect.any(String), id: 50, state: 'Empty', members: [] },
    ]);
    expect(pool.stderr).toBe('');
    const table = await runCli(['pool', '--client', 'platformatic', '--prefix', h.prefix]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(
      new RegExp(`^${escape(live)}\\s+\\d+\\s+Stable\\s+1\\s+cli-kip848-${e.name}\\s`, 'm'),
    );
    expect(table.stdout).toContain('2 groups: 1 with one member, 0 with several, 1 empty');
    const roster = await runCli(['roster', ...platformatic]);
    expect(roster.code, roster.stderr).toBe(0);
    expect(JSON.parse(roster.stdout)).toEqual([
      expect.objectContaining({
        instance: e.name,
        groupId: live,
        clientId: `cli-kip848-${e.name}`,
      }),
    ]);
    const dry = await runCli(['cleanup', ...platformatic]);
    expect(dry.code, dry.stderr).toBe(0);
    const plan = (JSON.parse(dry.stdout) as CleanupJson).groups;
    expect(plan.map((g) => [g.groupId, g.state, g.reason, g.action])).toEqual([
      [live, 'Stable', 'has members', 'kept'],
      [leftover, 'Empty', `above high-water mark ${e.status().lockId}`, 'would delete'],
    ]);
    const real = await runCli(['cleanup', ...platformatic, '--yes']);
    expect(real.code, real.stderr).toBe(0);
    expect(
      (JSON.parse(real.stdout) as CleanupJson).groups.map((g) => [g.groupId, g.action]),
    ).toEqual([
      [live, 'kept'],
      [leftover, 'deleted'],
    ]);
    expect(await describeConsumerGroup(admin, leftover)).toMatchObject({ kind: 'other' });
    expect(await describeConsumerGroup(admin, live)).toMatchObject({
      kind: 'consumer',
      members: [expect.anything()],
    });
  });
});
