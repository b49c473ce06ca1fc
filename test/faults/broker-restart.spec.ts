// Broker restart: a private 1-node cluster is stopped and started again at once (same node, same
// data dir, same ports): the broker is away for the JVM's restart only, a few seconds, which the
// fetches ride out. The group membership must not end either: once the sessions from before the
// restart expired, the instance is still the only member of its group. (The long outage, which
// the consumers do not ride out, is test/faults/broker-outage.spec.ts.)
import { setTimeout as delay } from 'node:timers/promises';
import { onTestFailed } from 'vitest';
import { startCluster, type KafkaCluster } from '../../scripts/kafka-cluster.mjs';
import {
  connectedAdmin,
  connectedProducer,
  deadMemberSessionMs,
  describe1,
  ensureLibBuilt,
  FAST_CONSUMER,
  publishJson,
} from '../support/faults/faults.js';
import { Instances } from '../support/faults/instances.js';
import { testPrefix, waitFor } from '../support/broker/kafka.js';
import { clientScoped, kafkaClients } from '../support/broker/kafka-clients.js';

const TOPIC = 'news';
const HEARTBEAT_MS = 1_000;
const MAX_STALENESS_MS = 3_000;
const fleet = new Instances();
let cluster: KafkaCluster | undefined;

beforeAll(async () => {
  ensureLibBuilt();
  cluster = await startCluster({ nodes: 1, quiet: true });
});

afterAll(async () => {
  await fleet.killAll();
  await cluster?.stop();
});

describe.each(kafkaClients())('%s client: broker restart', (client) => {
  it('stays the only member of its group through a broker restart its fetches ride out', async () => {
    onTestFailed(() => console.log(fleet.diagnostics()));
    const brokers = cluster!.brokers;
    const prefix = testPrefix(clientScoped('faults-restart', client));
    const instance = fleet.spawn({
      name: 'restart',
      brokers,
      prefix,
      kafka: { client },
      lock: 'none',
      topics: [TOPIC],
      consumer: FAST_CONSUMER,
      heartbeat: { intervalMs: HEARTBEAT_MS },
      maxStalenessMs: MAX_STALENESS_MS,
    });
    const { groupId } = await instance.ready();
    // Stopped and started at once: the broker is away for the JVM's restart only, a few
    // seconds, which fetches retry through; its group's heartbeats must resume as well.
    await cluster!.stopNode(1);
    await cluster!.startNode(1);
    const upAt = Date.now();
    const admin = await connectedAdmin(brokers);
    const producer = await connectedProducer(brokers);
    try {
      const sent = [0, 1, 2].map((n) => ({ phase: 'after restart', n }));
      await publishJson(producer, prefix + TOPIC, sent);
      await waitFor(() => instance.payloads(TOPIC).length >= sent.length, {
        timeoutMs: 60_000,
        message: `broadcasts after the restart not received\n${fleet.diagnostics()}`,
      });
      // A membership that lapsed shows once the sessions from before the restart expired: the
      // group goes empty while the instance reads on. No event marks one that did not lapse,
      // so this waits out twice the session timeout from the restart (the client's in a classic
      // group, the broker's group.consumer.session.timeout.ms in a KIP-848 one).
      const sessionMs = await deadMemberSessionMs(admin, groupId!, brokers);
      await delay(Math.max(0, upAt + 2 * sessionMs - Date.now()));
      const view = await describe1(admin, groupId!, brokers);
      expect([view.state, view.memberIds.length]).toEqual(['Stable', 1]);
      expect((await instance.status()).groupId).toBe(groupId);
      const exits = await fleet.stopAll();
      expect(exits.map((e) => e.code)).toEqual([0]);
    } finally {
      await producer.disconnect().catch(() => undefined);
      await admin.disconnect().catch(() => undefined);
    }
  });
});
