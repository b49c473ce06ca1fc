/**
 * Readiness on an idle cluster right after start: an instance reads the newest heartbeat already
 * in the heartbeat topic's log when it starts, so its freshness is known at once instead of after
 * the next heartbeat (up to interval × (1 + jitter) later). The mechanism is asserted: the new
 * instance sent nothing and nothing new was appended, yet it has a heartbeat and a latency; and
 * no handler saw anything (heartbeats are internal, nothing else is replayed).
 */
import { notReadyReason } from '../../libs/broadcast/src/nest/terminus/broadcast-health.rules.js';
import { useEngineHarness } from '../support/engine/engine.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';
import { waitFor } from '../support/broker/kafka.js';

// Long enough that nobody's next heartbeat falls within the test; a newcomer sends within
// INTERVAL_MS × JITTER (1 s) of its start, a backup waits more than a whole interval.
const INTERVAL_MS = 20_000;
const JITTER = 0.05;
const MAX_STALENESS_MS = 2 * INTERVAL_MS;

describe.each(kafkaClients())(
  'freshness known at start on an idle cluster, %s client',
  (client) => {
    it('a second instance is healthy from the newest heartbeat in the log, sending none itself', async () => {
      const h = useEngineHarness(
        'hb-fresh',
        { heartbeat: { intervalMs: INTERVAL_MS, jitter: JITTER } },
        client,
      );
      await h.createTopics([{ topic: 'idle', numPartitions: 1 }]);
      const a = await h.start({ lock: 'none', topics: ['idle'], name: 'a' });
      // A newcomer on an empty topic sends its first heartbeat within a second.
      await waitFor(() => a.engine.heartbeat.sent === 1 && a.status().heartbeats === 1, {
        timeoutMs: 15_000,
        message: `a sent ${a.engine.heartbeat.sent}, received ${a.status().heartbeats}`,
      });
      const endBefore = await h.topicEnd(h.heartbeatTopic);

      const b = await h.start({ lock: 'none', topics: ['idle'], name: 'b' });
      const readyAt = Date.now();
      await waitFor(() => b.status().lastLatencyMs !== undefined, {
        timeoutMs: 10_000,
        message: `b has no freshness: ${JSON.stringify(b.status())}`,
      });
      console.log(`[hb-fresh ${client}] freshness known ${Date.now() - readyAt} ms after ready`);
      const limits = { maxStalenessMs: MAX_STALENESS_MS, maxGroups: 100 };
      expect(notReadyReason(b.status(), limits)).toBeUndefined();
      // Known from a's heartbeat already in the log: b sent none, the topic got nothing new.
      expect(b.engine.heartbeat.sent).toBe(0);
      expect(b.status().heartbeats).toBe(1);
      expect(await h.topicEnd(h.heartbeatTopic)).toBe(endBefore);
      expect([a.payloads('idle'), b.payloads('idle')]).toEqual([[], []]);

      // Reading continues from there: a message published now reaches b once.
      await a.engine.publisher.publish('idle', { n: 1 });
      await waitFor(() => b.payloads('idle').length === 1, { message: 'b did not receive n=1' });
    });
  },
);
