/**
 * kafka.groupProtocol on a broker without the KIP-848 consumer protocol (its own broker, started
 * with group.coordinator.rebalance.protocols=classic: ApiVersions still lists ConsumerGroupHeartbeat,
 * the broker refuses it with UNSUPPORTED_VERSION): 'auto', the @platformatic/kafka default, falls
 * back to a classic group, 'consumer' is refused at startup with an error naming the option.
 */
import { Admin } from '@platformatic/kafka';
import { BroadcastStartupError } from 'nestjs-kafka-broadcast';
import { onTestFailed, onTestFinished } from 'vitest';
import { startCluster, type KafkaCluster } from '../../scripts/kafka-cluster.mjs';
import { describeConsumerGroup } from '../../libs/broadcast/src/adapters/platformatic/platformatic-consumer-group-describe.js';
import { EngineHarness } from '../support/engine/engine.js';
import { testPrefix } from '../support/broker/kafka.js';
import { brokerState } from '../../libs/broadcast/src/adapters/platformatic/platformatic-group-state.js';

const TOPIC = 'news';
let cluster: KafkaCluster;
let admin: Admin;

beforeAll(async () => {
  cluster = await startCluster({
    nodes: 1,
    quiet: true,
    properties: () => ({ 'group.coordinator.rebalance.protocols': 'classic' }),
  });
  admin = new Admin({
    clientId: 'kip848-fallback',
    bootstrapBrokers: cluster.bootstrap.split(','),
  });
}, 120_000);

afterAll(async () => {
  await admin?.close();
  await cluster?.stop();
});

function harness(name: string): EngineHarness {
  const h = new EngineHarness(
    name,
    {},
    {
      prefix: testPrefix(name),
      brokers: cluster.bootstrap.split(','),
      client: 'platformatic',
    },
  );
  onTestFailed(() => console.log(`---- engine logs of ${h.prefix} ----\n${h.dumpLogs()}`));
  onTestFinished(() => h.cleanup());
  return h;
}

describe('kafka.groupProtocol on a broker without the consumer protocol', () => {
  it('the broker still lists ConsumerGroupHeartbeat in ApiVersions but refuses KIP-848 requests (why auto probes)', async () => {
    const apis = await admin.listApis();
    expect(apis.some((a) => a.apiKey === 68)).toBe(true);
    const refused = await describeConsumerGroup(admin, `${testPrefix('kip848-probe')}g`).then(
      () => 'answered',
      (error: { errors?: { apiId?: string }[] }) => error.errors?.[0]?.apiId,
    );
    expect(refused).toBe('UNSUPPORTED_VERSION');
  });

  // The default is 'auto': without the option too (groupProtocol undefined overrides what
  // BROADCAST_GROUP_PROTOCOL would set in the harness).
  it.each([['auto'], [undefined]] as const)(
    'groupProtocol %s joins a classic group: DescribeGroups sees the one member, and it receives what is published',
    async (groupProtocol) => {
      const h = harness(`kip848-auto-${groupProtocol ?? 'default'}`);
      await h.createTopics([{ topic: TOPIC, numPartitions: 2 }]);
      const e = await h.start({ lock: 'none', topics: [TOPIC], kafka: { groupProtocol } });
      const groupId = e.status().groupId!;
      const group = (await admin.describeGroups({ groups: [groupId] })).get(groupId);
      expect(brokerState(group?.state ?? '')).toBe('Stable');
      expect([...group!.members.keys()]).toHaveLength(1);
      await e.engine.publisher.publish(TOPIC, { n: 1 });
      await vi.waitFor(() => expect(e.payloads(TOPIC)).toEqual([{ n: 1 }]), { timeout: 10_000 });
    },
  );

  it("'consumer' fails the start with an error naming kafka.groupProtocol", async () => {
    const h = harness('kip848-refused');
    const e = await h.create({
      lock: 'none',
      topics: [TOPIC],
      kafka: { groupProtocol: 'consumer' },
    });
    const error: unknown = await h.startEngine(e).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(BroadcastStartupError);
    expect((error as { option: string }).option).toBe('kafka.groupProtocol');
    expect((error as Error).message).toMatch(/does not offer the KIP-848 consumer group protocol/);
  });
});
