// Concurrent starts: 20 instances start at the same moment, with PostgreSQL locks, with
// MariaDB locks and lock-free. Every one ends up ready in a group of its own, and each receives
// every broadcast published after all are ready. In-process engines (no crash is involved, and
// 20 Node processes on 2 cores would mostly measure process start-up), each with its own
// DataSource and its own kafkajs clients, as separate application instances would have.
import type { Admin, Producer } from 'kafkajs';
import {
  connectedAdmin,
  connectedProducer,
  describe1,
  prefixGroups,
  publishJson,
  recordReliability,
  faultEngines,
} from '../support/faults/faults.js';
import type { EngineHarness, TestEngine } from '../support/engine/engine.js';
import type { LockKind } from '../support/faults/instances.js';
import { clientScoped, kafkaClients } from '../support/broker/kafka-clients.js';
import { kafkaBrokers, testPrefix, waitFor } from '../support/broker/kafka.js';

const TOPIC = 'news';
const INSTANCES = 20;
const MESSAGES = 20;
const brokers = kafkaBrokers();
let admin: Admin;

beforeAll(async () => {
  admin = await connectedAdmin(brokers);
});

afterAll(async () => {
  await admin?.disconnect();
});

describe.each(kafkaClients())('%s client', (client) => {
  describe.each(['postgres', 'mariadb', 'none'] as const)(
    '%s: 20 instances starting at once',
    (kind: LockKind) => {
      let engines: EngineHarness;
      // One producer per test: a kafkajs producer keeps every topic it ever sent to in its metadata
      // requests, and fails once one of them (an earlier test's, deleted in cleanup) is gone.
      let producer: Producer | undefined;

      afterEach(async () => {
        await producer?.disconnect();
        producer = undefined;
        await engines?.cleanup();
      });

      it('all become ready in 20 distinct groups and each receives every broadcast', async () => {
        const prefix = testPrefix(clientScoped(`faults-concurrent-${kind}`, client));
        engines = faultEngines(prefix, brokers, client);
        // Nothing exists yet: the 20 also race to create the topics.
        const created: TestEngine[] = [];
        for (let n = 0; n < INSTANCES; n++)
          created.push(await engines.create({ name: `i${n}`, lock: kind, topics: [TOPIC] }));

        const began = Date.now();
        const results = await Promise.allSettled(created.map((e) => engines.startEngine(e)));
        const allStartedMs = Date.now() - began;
        const failures = results
          .filter((r) => r.status === 'rejected')
          .map((r) => String((r as PromiseRejectedResult).reason));
        expect(failures, engines.dumpLogs()).toEqual([]);

        const statuses = created.map((e) => e.engine.reader.status());
        expect(statuses.map((s) => s.state)).toEqual(Array(INSTANCES).fill('ready'));
        expect(statuses.every((s) => s.lockMode === (kind === 'mariadb' ? 'mysql' : kind))).toBe(
          true,
        );
        const groupIds = statuses.map((s) => s.groupId!);
        expect(new Set(groupIds).size).toBe(INSTANCES);
        const base = kind === 'none' ? 'broadcastLFConsumer' : 'broadcastConsumer';
        for (const g of groupIds) expect(g.startsWith(`${prefix}${base}-`)).toBe(true);
        if (kind !== 'none') {
          // Lowest-first under locks: the 20 instances pack into ids 0..19.
          expect(statuses.map((s) => s.lockId).sort((a, b) => a! - b!)).toEqual(
            Array.from({ length: INSTANCES }, (_, i) => i),
          );
        }
        // Each group has exactly one member: its owner.
        for (const g of groupIds) expect((await describe1(admin, g)).memberIds, g).toHaveLength(1);

        producer = await connectedProducer(brokers);
        const payloads = Array.from({ length: MESSAGES }, (_, n) => ({ n }));
        const publishedAt = Date.now();
        await publishJson(producer, prefix + TOPIC, payloads);
        await waitFor(() => created.every((e) => e.payloads(TOPIC).length >= MESSAGES), {
          timeoutMs: 60_000,
          message: `not every instance got every broadcast: ${created.map((e) => `${e.name}=${e.payloads(TOPIC).length}`).join(' ')}`,
        });
        const deliveredMs = Date.now() - publishedAt;
        for (const e of created) expect(e.payloads(TOPIC), e.name).toEqual(payloads);

        const groupsOnBroker = await prefixGroups(admin, prefix);
        if (kind !== 'none') expect(groupsOnBroker).toHaveLength(INSTANCES);
        const startMs = created.map((e) => e.readyMs!).sort((a, b) => a - b);
        const refusals = created.reduce(
          (sum, e) => sum + e.logger.matching(/Giving up|shared with|still has members/).length,
          0,
        );

        recordReliability({
          scenario: clientScoped(`concurrent-starts-${kind}`, client),
          instances: INSTANCES,
          crashes: 0,
          sent: MESSAGES,
          deliveriesExpected: INSTANCES * MESSAGES,
          received: created.reduce((sum, e) => sum + e.payloads(TOPIC).length, 0),
          lost: 0,
          groupsBefore: 0,
          groupsAfter: groupsOnBroker.length,
          recoverMs: null,
          allReadyMs: allStartedMs,
          medianStartMs: startMs[Math.floor(startMs.length / 2)],
          maxStartMs: startMs.at(-1),
          deliveredToAllMs: deliveredMs,
          maxLockId: Math.max(...statuses.map((s) => s.lockId!)),
          refusalsLogged: refusals,
        });
      });
    },
  );
});
