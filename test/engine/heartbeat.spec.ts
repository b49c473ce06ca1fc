/**
 * Heartbeat suppression across a cluster: every engine sends a heartbeat only when nothing
 * (its own or anyone's) was received for about one interval, so five idle engines put about
 * one heartbeat per interval on the topic, not five. Counted on the broker, from the topic's
 * offsets over a fixed window: waiting out the window is the measurement itself.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { useEngineHarness } from '../support/engine/engine.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';

const ENGINES = 5;
const INTERVAL_MS = 2_000;
const JITTER = 0.25;
const WINDOW_MS = 30_000;
const SAMPLE_EVERY_MS = 250;

describe.each(kafkaClients())('BroadcastEngine: heartbeats, %s client', (client) => {
  it(
    `${ENGINES} idle engines send about one heartbeat per interval between them`,
    { timeout: 120_000 },
    async () => {
      const h = useEngineHarness(
        'heartbeat',
        { heartbeat: { intervalMs: INTERVAL_MS, jitter: JITTER } },
        client,
      );
      const engines = await h.startMany(ENGINES, {
        lock: 'postgres',
        topics: ['idle'],
      });
      await h.allReady(engines);

      const intervals = WINDOW_MS / INTERVAL_MS;
      const windowStart = Date.now();
      const startEnd = await h.topicEnd(h.heartbeatTopic);
      const sentAtStart = engines.map((e) => e.engine.heartbeat.sent);
      const seenAtStart = engines.map((e) => e.engine.reader.status().heartbeats);
      // Sample every engine's freshness through the window (the window itself is the measurement).
      const maxLatency = engines.map(() => 0);
      while (Date.now() - windowStart < WINDOW_MS) {
        await delay(Math.min(SAMPLE_EVERY_MS, WINDOW_MS - (Date.now() - windowStart)));
        engines.forEach((e, i) => {
          const latency = e.status().lastLatencyMs;
          if (latency !== undefined) maxLatency[i] = Math.max(maxLatency[i]!, latency);
        });
      }
      const count = (await h.topicEnd(h.heartbeatTopic)) - startEnd;
      const elapsed = Date.now() - windowStart;
      const sent = engines.map((e, i) => e.engine.heartbeat.sent - sentAtStart[i]!);
      const seen = engines.map((e, i) => e.engine.reader.status().heartbeats - seenAtStart[i]!);
      const endLatency = engines.map((e) => e.status().lastLatencyMs);

      console.log(
        `[heartbeat] ${count} heartbeats on the topic in ${elapsed} ms (${intervals} intervals of ${INTERVAL_MS} ms); ` +
          `sent per engine ${sent.join('/')}; seen per engine ${seen.join('/')}; ` +
          `max lastLatencyMs per engine ${maxLatency.join('/')}; at the end ${endLatency.join('/')}`,
      );
      // About one per interval for the whole cluster — far below one per interval per engine.
      expect(count).toBeGreaterThanOrEqual(0.5 * intervals);
      expect(count).toBeLessThanOrEqual(1.5 * intervals + ENGINES);
      // What the engines say they sent is what the broker holds (nothing else writes there); one
      // send may straddle a window edge, acknowledged on one side and counted on the other.
      expect(Math.abs(sent.reduce((a, b) => a + b, 0) - count)).toBeLessThanOrEqual(1);
      // Every engine read the heartbeats (its own and the others'): that is what silences it.
      for (const s of seen) expect(s).toBeGreaterThanOrEqual(count - 2);
      // Fresh throughout, and at the end: every engine sees traffic within 2 × interval.
      for (const latency of endLatency) {
        expect(latency).toBeDefined();
        expect(latency!).toBeLessThan(2 * INTERVAL_MS);
      }
      for (const latency of maxLatency) expect(latency).toBeLessThan(2 * INTERVAL_MS);
      for (const e of engines)
        expect(e.status()).toMatchObject({
          state: 'ready',
          received: 0,
          failed: 0,
          skipped: 0,
        });
    },
  );
});
