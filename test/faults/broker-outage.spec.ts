// Broker outage: a private 1-node cluster is stopped for 15 s and started again (same node,
// same data dir, same ports) under 3 instance processes with PostgreSQL locks. No process exits,
// health goes down and comes back, every broadcast published after it is back reaches every
// instance, and every instance is still in the group it had (no extra groups). A restart the
// fetches ride out (a few seconds) must not end the group membership either.
import { setTimeout as delay } from 'node:timers/promises';
import type { Admin, Producer } from 'kafkajs';
import { onTestFailed } from 'vitest';
import { startCluster, type KafkaCluster } from '../../scripts/kafka-cluster.mjs';
import {
  connectedAdmin,
  connectedProducer,
  deadMemberSessionMs,
  describe1,
  ensureLibBuilt,
  FAST_CONSUMER,
  LOCK_CHECK_INTERVAL_MS,
  prefixGroups,
  publishJson,
  recordReliability,
} from '../support/faults/faults.js';
import { Instances, type Instance, type StatusEvent } from '../support/faults/instances.js';
import { testPrefix, waitFor } from '../support/broker/kafka.js';
import { clientScoped, kafkaClients } from '../support/broker/kafka-clients.js';

const TOPIC = 'news';
const OUTAGE_MS = 15_000;
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

function statuses(instance: Instance, from: number, to = Infinity): StatusEvent[] {
  return instance.events.filter(
    (e): e is StatusEvent => e.event === 'status' && e.at >= from && e.at <= to,
  );
}

function healthyNow(instance: Instance): boolean {
  const last = statuses(instance, 0).at(-1);
  return last?.healthy === true;
}

describe.each(kafkaClients())('%s client: broker outage', (client) => {
  it(`survives the broker being down ${OUTAGE_MS / 1000} s: health goes down and up, nothing lost, same groups`, async () => {
    onTestFailed(() => console.log(fleet.diagnostics()));
    const brokers = cluster!.brokers;
    const prefix = testPrefix(clientScoped('faults-outage', client));
    const instances = ['a', 'b', 'c'].map((name) =>
      fleet.spawn({
        name,
        brokers,
        prefix,
        kafka: { client },
        lock: 'postgres',
        topics: [TOPIC],
        consumer: FAST_CONSUMER,
        lockCheckIntervalMs: LOCK_CHECK_INTERVAL_MS,
        heartbeat: { intervalMs: HEARTBEAT_MS },
        maxStalenessMs: MAX_STALENESS_MS,
      }),
    );
    let admin: Admin | undefined = await connectedAdmin(brokers);
    let producer: Producer | undefined = await connectedProducer(brokers);
    try {
      const readies = await Promise.all(instances.map((i) => i.ready()));
      const groupsOfInstances = readies.map((r) => r.groupId);
      expect(new Set(groupsOfInstances).size).toBe(3);
      for (const i of instances) i.send('watch 100');
      await waitFor(() => instances.every(healthyNow), {
        timeoutMs: 20_000,
        message: `not all healthy before the outage\n${fleet.diagnostics()}`,
      });

      const sentBefore = [0, 1, 2].map((n) => ({ phase: 'before', n }));
      await publishJson(producer, prefix + TOPIC, sentBefore);
      await waitFor(() => instances.every((i) => i.payloads(TOPIC).length === sentBefore.length), {
        timeoutMs: 20_000,
        message: 'pre-outage broadcasts not received',
      });
      const groupsBefore = await prefixGroups(admin, prefix);
      await producer.disconnect();
      await admin.disconnect();
      producer = undefined;
      admin = undefined;

      // The outage: a clean broker shutdown, 15 s of nothing, a restart on the same data and ports.
      const stopBegan = Date.now();
      await cluster!.stopNode(1);
      const downAt = Date.now();
      // Health must drop while the broker is away (fresh heartbeats stop arriving).
      await waitFor(() => instances.every((i) => statuses(i, downAt).some((s) => !s.healthy)), {
        timeoutMs: OUTAGE_MS,
        intervalMs: 100,
        message: 'health did not go down during the outage',
      });
      const healthDownMs = Math.max(
        ...instances.map((i) => statuses(i, downAt).find((s) => !s.healthy)!.at - downAt),
      );
      // The outage length is the experiment's parameter, not a wait for an event.
      await delay(Math.max(0, downAt + OUTAGE_MS - Date.now()));
      const restartBegan = Date.now();
      await cluster!.startNode(1);
      const upAt = Date.now();
      // Stopped for OUTAGE_MS, then unavailable until the restarted JVM answered again.
      const outageMs = restartBegan - downAt;
      const unavailableMs = upAt - downAt;

      await waitFor(() => instances.every((i) => statuses(i, upAt).some((s) => s.healthy)), {
        timeoutMs: 60_000,
        intervalMs: 100,
        message: `health did not come back\n${fleet.diagnostics()}`,
      });
      const healthyAgainAt = Date.now();
      const recoverMs = healthyAgainAt - upAt;
      const instanceRecoverMs = instances.map(
        (i) => statuses(i, upAt).find((s) => s.healthy)!.at - upAt,
      );

      // Everything published once health is back reaches everyone.
      admin = await connectedAdmin(brokers);
      producer = await connectedProducer(brokers);
      const sentAfter = Array.from({ length: 10 }, (_, n) => ({
        phase: 'after',
        n,
      }));
      await publishJson(producer, prefix + TOPIC, sentAfter);
      await waitFor(
        () =>
          instances.every((i) =>
            sentAfter.every((p) =>
              i.payloads(TOPIC).some((q) => JSON.stringify(q) === JSON.stringify(p)),
            ),
          ),
        {
          timeoutMs: 30_000,
          intervalMs: 50,
          message: `post-outage broadcasts not received by all\n${fleet.diagnostics()}`,
        },
      );
      const deliveredMs = Date.now() - healthyAgainAt;

      // No process exited, nobody moved, no group appeared.
      expect(instances.every((i) => i.alive)).toBe(true);
      const after = await Promise.all(instances.map((i) => i.status()));
      expect(after.map((s) => s.groupId)).toEqual(groupsOfInstances);
      expect(after.every((s) => s.state === 'ready')).toBe(true);
      const groupsAfter = await prefixGroups(admin, prefix);
      expect(groupsAfter).toEqual(groupsBefore);
      expect(groupsAfter).toEqual([...groupsOfInstances].sort());
      // Each saw the pre-outage broadcasts once and the post-outage ones (at least) once.
      for (const i of instances) {
        const got = i.payloads(TOPIC).map((p) => JSON.stringify(p));
        for (const p of [...sentBefore, ...sentAfter])
          expect(got, i.name).toContain(JSON.stringify(p));
      }
      const duplicates = instances.reduce((sum, i) => sum + i.payloads(TOPIC).length - 13, 0);
      const recovering = instances.map(
        (i) => i.events.filter((e) => e.event === 'state' && e.state === 'recovering').length,
      );

      const exits = await fleet.stopAll();
      expect(exits.map((e) => e.code)).toEqual([0, 0, 0]);

      recordReliability({
        scenario: clientScoped('broker-outage', client),
        instances: 3,
        crashes: 0,
        outageMs,
        unavailableMs,
        stopNodeMs: downAt - stopBegan,
        startNodeMs: upAt - restartBegan,
        sent: sentBefore.length + sentAfter.length,
        deliveriesExpected: 3 * (sentBefore.length + sentAfter.length),
        received: 3 * (sentBefore.length + sentAfter.length),
        lost: 0,
        duplicates,
        groupsBefore: groupsBefore.length,
        groupsAfter: groupsAfter.length,
        healthDownAfterMs: healthDownMs,
        recoverMs,
        instanceRecoverMs,
        firstDeliveryAfterHealthyMs: deliveredMs,
        recoveringTransitions: recovering,
        heartbeatIntervalMs: HEARTBEAT_MS,
        maxStalenessMs: MAX_STALENESS_MS,
      });
    } finally {
      await producer?.disconnect().catch(() => undefined);
      await admin?.disconnect().catch(() => undefined);
    }
  });

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
