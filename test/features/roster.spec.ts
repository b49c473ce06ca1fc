/**
 * The live roster and receipts with a real crash: a child process (the built library) joins,
 * every in-process engine's roster sees it with its group, lock id and version; after SIGKILL a
 * receipt lists it as missing while the others answer, and the roster drops it once its member
 * expires (the session timeout). A graceful stop leaves the roster at the next refresh.
 */
import { type RosterInstance } from 'nestjs-kafka-broadcast';
import { LIBRARY_VERSION } from '../../libs/broadcast/src/core/features/roster/library-version.js';
import { useEngineHarness, type LockKind } from '../support/engine/engine.js';
import { ensureLibBuilt, FAST_CONSUMER } from '../support/faults/faults.js';
import { Instances, type ReadyEvent } from '../support/faults/instances.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';
import { kafkaBrokers, waitFor } from '../support/broker/kafka.js';

const TOPIC = 'product.changed';
const ROSTER_INTERVAL_MS = 1_000;
let fleet: Instances;

beforeAll(() => {
  ensureLibBuilt();
});

beforeEach(() => {
  fleet = new Instances();
});

afterEach(async () => {
  await fleet.killAll();
});

describe.each(kafkaClients())(
  'roster and receipts with a crashed instance, %s client',
  (client) => {
    it.each<[LockKind]>([['postgres'], ['mariadb'], ['none']])(
      '%s: join seen with its group; SIGKILL → receipt missing, then leave after the session timeout',
      async (lock) => {
        const h = useEngineHarness(
          `roster-${lock}`,
          { roster: { intervalMs: ROSTER_INTERVAL_MS }, consumer: FAST_CONSUMER },
          client,
        );
        const [a, b] = [
          await h.start({ lock, topics: [TOPIC], name: 'a' }),
          await h.start({ lock, topics: [TOPIC], name: 'b' }),
        ];
        const joins: { instance: RosterInstance; at: number }[] = [];
        const leaves: { instance: RosterInstance; at: number }[] = [];
        a.engine.roster.on('join', (instance) => joins.push({ instance, at: Date.now() }));
        a.engine.roster.on('leave', (instance) => leaves.push({ instance, at: Date.now() }));
        await waitFor(() => joins.some((j) => j.instance.instanceId === 'b'));

        const child = fleet.spawn({
          name: 'k',
          brokers: kafkaBrokers(),
          prefix: h.prefix,
          lock,
          topics: [TOPIC],
          consumer: FAST_CONSUMER,
          kafka: { client },
        });
        const ready = await child.waitFor<ReadyEvent>((e) => e.event === 'ready', {
          message: `child ready\n${child.diagnostics()}`,
        });
        const joined = await waitFor(() => joins.find((j) => j.instance.instanceId === 'k'), {
          timeoutMs: 15_000,
          message: 'roster join of k',
        });
        const entry = joined.instance;
        expect(entry.groupId).toBe(ready.groupId);
        expect(entry.lockId).toBe(ready.lockId);
        expect(entry.service).toBe(lock === 'none' ? 'broadcastLFConsumer' : 'broadcastConsumer');
        expect(entry.libraryVersion).toBe(LIBRARY_VERSION);
        expect(entry.topics).toContain(TOPIC);
        expect(entry.since).toBeLessThanOrEqual(ready.at);
        expect(a.engine.roster.instances().map((i) => i.instanceId)).toEqual(['a', 'b', 'k']);

        const all = await a.engine.publisher.publish(TOPIC, { id: 1 }, { receipts: true });
        expect(all.ok).toEqual(['a', 'b', 'k']);

        const killed = await child.kill9();
        const receipt = await b.engine.publisher.publish(
          TOPIC,
          { id: 2 },
          { receipts: { timeoutMs: 3_000 } },
        );
        expect(receipt.expected).toEqual(['a', 'b', 'k']);
        expect(receipt.ok).toEqual(['a', 'b']);
        expect(receipt.missing).toEqual(['k']);
        expect(receipt.failed).toEqual([]);

        const left = await waitFor(() => leaves.find((l) => l.instance.instanceId === 'k'), {
          timeoutMs: FAST_CONSUMER.sessionTimeoutMs + 4 * ROSTER_INTERVAL_MS + 5_000,
          message: 'roster leave of k',
        });
        // With k gone from the roster, nobody is missing any more.
        const after = await b.engine.publisher.publish(TOPIC, { id: 3 }, { receipts: true });
        expect(after.expected).toEqual(['a', 'b']);
        expect(after.ok).toEqual(['a', 'b']);

        // A graceful stop leaves the group at once: gone at the next refresh.
        const stoppedAt = Date.now();
        await h.stopEngine(b);
        const bLeft = await waitFor(() => leaves.find((l) => l.instance.instanceId === 'b'), {
          timeoutMs: 4 * ROSTER_INTERVAL_MS + 5_000,
          message: 'roster leave of b',
        });
        console.log(
          `[roster ${client} ${lock}] join seen ${joined.at - ready.at} ms after ready; crash seen ${left.at - killed.at} ms after SIGKILL (session ${FAST_CONSUMER.sessionTimeoutMs} ms); graceful stop seen ${bLeft.at - stoppedAt} ms after stop(); refresh every ${ROSTER_INTERVAL_MS} ms`,
        );
      },
    );
  },
);
