// Coordinator failover: a private 3-node KRaft cluster, broadcast topics with replication
// factor 3 and 3 partitions, 3 instance processes with MariaDB locks. The broker coordinating
// the broadcast groups is killed (SIGKILL); once the coordinator has moved, broadcasts keep
// reaching every instance, nothing acknowledged is lost, and nobody changes group.
//
// Finding the coordinator: kafkajs's admin has no API for it, so findCoordinator() (support/
// faults.ts) sends a real FindCoordinator request through a throwaway kafkajs Cluster, built with
// the factory the Kafka object keeps under the private symbol 'private:Kafka:createCluster'.
// It is cross-checked with the leader of __consumer_offsets partition 0 (the cluster has one
// offsets partition, so that leader coordinates every group).
import type { Admin, Producer } from 'kafkajs';
import { onTestFailed } from 'vitest';
import { startCluster, type KafkaCluster } from '../../scripts/kafka-cluster.mjs';
import {
  connectedAdmin,
  connectedProducer,
  ensureLibBuilt,
  FAST_CONSUMER,
  LOCK_CHECK_INTERVAL_MS,
  findCoordinator,
  offsetsTopicLeader,
  prefixGroups,
  publishJson,
  recordReliability,
} from '../support/faults/faults.js';
import { Instances, type Instance, type StatusEvent } from '../support/faults/instances.js';
import { testPrefix, waitFor } from '../support/broker/kafka.js';
import { clientScoped, kafkaClients } from '../support/broker/kafka-clients.js';

const TOPIC = 'news';
const PARTITIONS = 3;
const fleet = new Instances();
let cluster: KafkaCluster | undefined;
/** The node the previous client's run killed: started again before the next run needs it. */
let killedNode: number | undefined;

beforeAll(async () => {
  ensureLibBuilt();
  cluster = await startCluster({ nodes: 3, quiet: true });
});

afterAll(async () => {
  await fleet.killAll();
  await cluster?.stop();
});

const key = (p: unknown) => JSON.stringify(p);
const has = (i: Instance, p: unknown) => i.payloads(TOPIC).some((q) => key(q) === key(p));

// One cluster for both clients: starting three nodes costs more than restarting the one killed.
describe.each(kafkaClients())(
  '%s client: group coordinator failover (3-node cluster)',
  (client) => {
    it('keeps broadcasting to every instance after the coordinating broker is killed', async () => {
      onTestFailed(() => console.log(fleet.diagnostics()));
      if (killedNode !== undefined) {
        await cluster!.startNode(killedNode);
        killedNode = undefined;
      }
      const brokers = cluster!.brokers;
      const prefix = testPrefix(clientScoped('faults-failover', client));
      const instances = ['a', 'b', 'c'].map((name) =>
        fleet.spawn({
          name,
          brokers,
          prefix,
          kafka: { client },
          lock: 'mariadb',
          topics: [TOPIC],
          consumer: FAST_CONSUMER,
          lockCheckIntervalMs: LOCK_CHECK_INTERVAL_MS,
          heartbeat: { intervalMs: 1_000 },
          maxStalenessMs: 3_000,
          topicOptions: { replicationFactor: 3, numPartitions: PARTITIONS },
        }),
      );
      let admin: Admin | undefined;
      let producer: Producer | undefined;
      let probing = false;
      let prober: Promise<void> | undefined;
      try {
        const readies = await Promise.all(instances.map((i) => i.ready(90_000)));
        const groupIds = readies.map((r) => r.groupId);
        admin = await connectedAdmin(brokers);
        producer = await connectedProducer(brokers);

        const { topics } = await admin.fetchTopicMetadata({
          topics: [prefix + TOPIC],
        });
        expect(topics[0]!.partitions).toHaveLength(PARTITIONS);
        for (const p of topics[0]!.partitions) expect(p.replicas).toHaveLength(3);

        const sent: unknown[] = [];
        const publish = async (payload: { phase: string; n: number }) => {
          await publishJson(producer!, prefix + TOPIC, [payload], payload.n % PARTITIONS);
          sent.push(payload);
        };
        for (let n = 0; n < 6; n++) await publish({ phase: 'before', n });
        await waitFor(() => instances.every((i) => sent.every((p) => has(i, p))), {
          timeoutMs: 30_000,
          message: `pre-failover broadcasts not received\n${fleet.diagnostics()}`,
        });

        const coordinators = await Promise.all(groupIds.map((g) => findCoordinator(brokers, g)));
        const coordinator = coordinators[0]!;
        expect(new Set(coordinators).size).toBe(1);
        expect(await offsetsTopicLeader(admin)).toBe(coordinator);
        const groupsBefore = await prefixGroups(admin, prefix);
        await admin.disconnect();
        admin = undefined;

        const killedAt = Date.now();
        killedNode = coordinator;
        await cluster!.killNode(coordinator);
        const liveBrokers = cluster!.nodes
          .filter((n) => n.id !== coordinator)
          .map((n) => `127.0.0.1:${n.port}`);

        // Probes every ~250 ms (acks = all, retried by the producer) while the cluster heals.
        probing = true;
        const probes: {
          payload: { phase: string; n: number };
          ackedAt: number;
        }[] = [];
        prober = (async () => {
          for (let n = 0; probing; n++) {
            const payload = { phase: 'probe', n };
            try {
              await publish(payload);
              probes.push({ payload, ackedAt: Date.now() });
            } catch {
              // Not acknowledged: not expected anywhere. The next probe retries.
            }
            await new Promise((resolve) => setTimeout(resolve, 250));
          }
        })();

        let newCoordinator = coordinator;
        await waitFor(
          async () => {
            newCoordinator = await findCoordinator(liveBrokers, groupIds[0]!);
            return newCoordinator !== coordinator;
          },
          {
            timeoutMs: 60_000,
            intervalMs: 250,
            message: 'the group coordinator did not move',
          },
        );
        const coordinatorMovedMs = Date.now() - killedAt;
        // Every instance gets a broadcast acknowledged after the coordinator moved.
        const movedAt = Date.now();
        await waitFor(
          () => {
            const after = probes.filter((p) => p.ackedAt >= movedAt);
            return after.length > 0 && instances.every((i) => after.some((p) => has(i, p.payload)));
          },
          {
            timeoutMs: 60_000,
            intervalMs: 50,
            message: `broadcasts stopped reaching an instance\n${fleet.diagnostics()}`,
          },
        );
        const recoverMs = Date.now() - killedAt;
        probing = false;
        await prober;

        for (let n = 0; n < 9; n++) await publish({ phase: 'after', n });
        await waitFor(() => instances.every((i) => sent.every((p) => has(i, p))), {
          timeoutMs: 60_000,
          intervalMs: 50,
          message: `acknowledged broadcasts missing: ${instances
            .map(
              (i) =>
                `${i.name}: ${sent
                  .filter((p) => !has(i, p))
                  .map(key)
                  .join(' ')}`,
            )
            .join('; ')}\n${fleet.diagnostics()}`,
        });
        const allDeliveredMs = Date.now() - killedAt;

        expect(instances.every((i) => i.alive)).toBe(true);
        // A member may still be finishing a second rejoin (a partition leader moved too): wait
        // for every instance to be ready, in the group it had.
        let statuses: StatusEvent[] = [];
        await waitFor(
          async () => {
            statuses = await Promise.all(instances.map((i) => i.status()));
            return statuses.every((s) => s.state === 'ready');
          },
          {
            timeoutMs: 60_000,
            intervalMs: 250,
            message: `not all ready again: ${statuses.map((s) => s.state).join(', ')}`,
          },
        );
        const settledMs = Date.now() - killedAt;
        expect(statuses.map((s) => s.groupId)).toEqual(groupIds);
        admin = await connectedAdmin(liveBrokers);
        const groupsAfter = await prefixGroups(admin, prefix);
        expect(groupsAfter).toEqual(groupsBefore);
        const duplicates = instances.reduce(
          (sum, i) => sum + i.payloads(TOPIC).length - sent.length,
          0,
        );
        const recovering = instances.map(
          (i) => i.events.filter((e) => e.event === 'state' && e.state === 'recovering').length,
        );

        const exits = await fleet.stopAll();
        expect(exits.map((e) => e.code)).toEqual([0, 0, 0]);

        recordReliability({
          scenario: clientScoped('coordinator-failover', client),
          instances: 3,
          crashes: 0,
          brokersKilled: 1,
          killedNode: coordinator,
          newCoordinator,
          sent: sent.length,
          deliveriesExpected: 3 * sent.length,
          received: 3 * sent.length,
          lost: 0,
          duplicates,
          groupsBefore: groupsBefore.length,
          groupsAfter: groupsAfter.length,
          coordinatorMovedMs,
          recoverMs,
          allDeliveredMs,
          allReadyAgainMs: settledMs,
          recoveringTransitions: recovering,
        });
      } finally {
        probing = false;
        await prober;
        await producer?.disconnect().catch(() => undefined);
        await admin?.disconnect().catch(() => undefined);
      }
    });
  },
);
