/**
 * Issue #23 (d): one heartbeat sender whose clock lags. Its records look older than they are to
 * every other instance (freshness is the record timestamp clamped to the local receive time), yet
 * they arrive on time; by more than maxStalenessMs − intervalMs, health would be down fleet-wide.
 * Here the laggard is a real child process whose whole clock (record timestamps included) is
 * shifted back, and it is the incumbent sender when three engines with true clocks join: one of
 * them must take over, the laggard must stop sending, and every instance must stay healthy by
 * BroadcastHealthIndicator's rule (ready and lastLatencyMs ≤ maxStalenessMs) with about one
 * heartbeat per interval on the topic. Heartbeats are counted on the broker over a fixed window:
 * waiting out the window is the measurement itself.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { onTestFailed } from 'vitest';
import {
  FAST_CONSUMER,
  useEngineHarness,
  type EngineHarness,
  type TestEngine,
} from '../support/engine/engine.js';
import { ensureLibBuilt } from '../support/faults/faults.js';
import { Instances, type StatusEvent } from '../support/faults/instances.js';
import { waitFor } from '../support/broker/kafka.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';

const INTERVAL_MS = 2_000;
const JITTER = 0.25;
/** Health's default bound: 2 × interval. */
const MAX_STALENESS_MS = 2 * INTERVAL_MS;
const NORMALS = 3;
const TOPIC = 'lagging';
/** Intervals given to the fleet to replace the laggard, as a poll deadline. */
const TAKEOVER_INTERVALS = 10;
/** Intervals without a send from the laggard before the window opens. */
const SETTLE_INTERVALS = 2;
const WINDOW_INTERVALS = 8;
/** Windows measured at most when a delivery stall falls into one (see measureWindow). */
const MAX_WINDOWS = 3;
const SAMPLE_EVERY_MS = 250;

const HOUR_MS = 3_600_000;

/**
 * Records stamped an hour back, every 50 ms until stopped: the engines with true clocks hear
 * something as soon as they start, so that they begin as backups (not as newcomers, which send
 * on their own) and the laggard stays the incumbent, as in a fleet it was serving first. Stamped
 * that far back, they look fresh to nobody, the laggard included: its heartbeats go on.
 */
function streamOld(h: EngineHarness): { stop(): Promise<void> } {
  let running = true;
  const done = (async () => {
    const producer = await h.producer();
    for (let n = 0; running; n++) {
      await producer.send({
        topic: h.topic(TOPIC),
        acks: -1,
        messages: [{ value: JSON.stringify({ n }), timestamp: String(Date.now() - HOUR_MS) }],
      });
      await delay(50);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await done;
    },
  };
}

beforeAll(() => {
  ensureLibBuilt();
});

describe.each(kafkaClients())('%s client: heartbeats: a sender whose clock lags', (client) => {
  for (const lagMs of [1.5 * (MAX_STALENESS_MS - INTERVAL_MS), 60_000])
    it(`an incumbent ${lagMs} ms behind is replaced and yields; everyone stays healthy at about one heartbeat per interval`, async () => {
      const heartbeat = { intervalMs: INTERVAL_MS, jitter: JITTER };
      const h = useEngineHarness(`hb-lag-${lagMs}`, { heartbeat }, client);
      const fleet = new Instances();
      h.onCleanup(() => fleet.stopAll());
      onTestFailed(() => console.log(fleet.diagnostics()));
      await h.createTopics([{ topic: TOPIC }]);

      const laggard = fleet.spawn({
        name: 'laggard',
        brokers: h.brokers,
        prefix: h.prefix,
        kafka: { client },
        lock: 'none',
        topics: [TOPIC],
        heartbeat,
        consumer: FAST_CONSUMER,
        clockOffsetMs: -lagMs,
      });
      await laggard.ready();
      // Alone, it heartbeats and hears its own: it is the incumbent.
      await waitFor(async () => (await laggard.status()).heartbeats >= 2, {
        timeoutMs: 5 * INTERVAL_MS,
        message: 'the laggard did not heartbeat on its own',
      });

      const stream = streamOld(h);
      let normals: TestEngine[];
      try {
        normals = await h.startMany(NORMALS, { lock: 'none', topics: [TOPIC] });
        const heardAtReady = normals.map((e) => e.payloads(TOPIC).length);
        await waitFor(() => normals.every((e, i) => e.payloads(TOPIC).length > heardAtReady[i]!), {
          message: 'the engines did not hear the old records',
        });
      } finally {
        await stream.stop();
      }
      const sentAtJoin = normals.map((e) => e.engine.heartbeat.sent);

      // Some engine with a true clock takes over within a few intervals, and every engine's view
      // is fresh again by health's rule.
      const describeNormals = () =>
        normals
          .map((e, i) => {
            const { state, lastLatencyMs, heartbeats } = e.status();
            return `${e.name}: ${state}, lastLatencyMs ${lastLatencyMs}, heartbeats heard ${heartbeats}, sent ${e.engine.heartbeat.sent - sentAtJoin[i]!}`;
          })
          .join('; ');
      let worstWhileWaiting = 0;
      await waitFor(
        () => {
          const latencies = normals.map((e) => e.status().lastLatencyMs ?? Infinity);
          worstWhileWaiting = Math.max(worstWhileWaiting, ...latencies);
          return (
            normals.some((e, i) => e.engine.heartbeat.sent > sentAtJoin[i]!) &&
            latencies.every((ms) => ms <= MAX_STALENESS_MS)
          );
        },
        {
          timeoutMs: TAKEOVER_INTERVALS * INTERVAL_MS,
          intervalMs: 100,
          message: 'nobody took over from the laggard',
        },
      ).catch((error: Error) => {
        throw new Error(
          `${error.message} (highest lastLatencyMs meanwhile ${worstWhileWaiting}; at the deadline: ${describeNormals()})`,
        );
      });

      // Steady state: sampled through a window once the laggard has yielded, i.e. sent nothing
      // for SETTLE_INTERVALS. It yields when it hears a heartbeat stamped well ahead of its clock;
      // on a loaded host that heartbeat can reach it too late to look ahead, and the laggard then
      // steps down through the collision rule instead (each colliding sender stays with
      // probability 1/k per round), which can take a few intervals: a fixed pause here let a
      // last send of the laggard fall inside the window (CI, confluent row: 'expected 1 to be +0').
      const quiet = { sent: (await laggard.status()).heartbeatsSent, since: Date.now() };
      await waitFor(
        async () => {
          const { heartbeatsSent } = await laggard.status();
          if (heartbeatsSent !== quiet.sent)
            Object.assign(quiet, { sent: heartbeatsSent, since: Date.now() });
          return Date.now() - quiet.since >= SETTLE_INTERVALS * INTERVAL_MS;
        },
        {
          timeoutMs: TAKEOVER_INTERVALS * INTERVAL_MS,
          intervalMs: SAMPLE_EVERY_MS,
          message: `the laggard did not stop sending for ${SETTLE_INTERVALS} intervals`,
        },
      );
      // One window of steady state. A window in which some heartbeat reached the engines later
      // than any backup waits ((1 + jitter) × interval: every backup, the laggard included, may
      // then take over, and rightly so) measures a delivery stall of the host, not the lag: seen
      // on the confluent rows at low load (max lastLatencyMs 3516, one send by the laggard among
      // four takeovers). It is measured again, at most MAX_WINDOWS times; a laggard that does not
      // yield keeps the engines' view older than that bound in every window, and fails below.
      const measureWindow = async () => {
        const windowMs = WINDOW_INTERVALS * INTERVAL_MS;
        const laggardAtStart = await laggard.status();
        const eventsAtStart = laggard.events.length;
        laggard.send(`watch ${SAMPLE_EVERY_MS}`);
        const topicAtStart = await h.topicEnd(h.heartbeatTopic);
        const sentAtStart = normals.map((e) => e.engine.heartbeat.sent);
        const windowStart = Date.now();
        const unhealthy: string[] = [];
        let maxLatency = 0;
        while (Date.now() - windowStart < windowMs) {
          await delay(Math.min(SAMPLE_EVERY_MS, windowMs - (Date.now() - windowStart)));
          for (const e of normals) {
            const { state, lastLatencyMs } = e.status();
            maxLatency = Math.max(maxLatency, lastLatencyMs ?? Infinity);
            if (state !== 'ready' || (lastLatencyMs ?? Infinity) > MAX_STALENESS_MS)
              unhealthy.push(`${e.name} ${state} ${lastLatencyMs}`);
          }
        }
        laggard.send('watch 0');
        const laggardAtEnd = await laggard.status();
        const elapsed = Date.now() - windowStart;
        const onTopic = (await h.topicEnd(h.heartbeatTopic)) - topicAtStart;
        const sentByNormals = normals.map((e, i) => e.engine.heartbeat.sent - sentAtStart[i]!);
        const sentByLaggard = laggardAtEnd.heartbeatsSent - laggardAtStart.heartbeatsSent;
        const laggardSamples = laggard.events
          .slice(eventsAtStart)
          .filter((e): e is StatusEvent => e.event === 'status' && e.id === undefined);
        const laggardUnhealthy = laggardSamples.filter((s) => !s.healthy);
        const perInterval = onTopic / (elapsed / INTERVAL_MS);

        console.log(
          `[heartbeat-clock-lag] lag ${lagMs} ms: ${onTopic} heartbeats in ${elapsed} ms = ${perInterval.toFixed(2)} per interval; ` +
            `sent by the engines ${sentByNormals.join('/')}, by the laggard ${sentByLaggard}; ` +
            `max lastLatencyMs of the engines ${maxLatency}, ${unhealthy.length} unhealthy samples; ` +
            `laggard: ${laggardSamples.length} samples, ${laggardUnhealthy.length} unhealthy`,
        );
        return {
          unhealthy,
          maxLatency,
          laggardSamples,
          laggardUnhealthy,
          sentByLaggard,
          perInterval,
          onTopic,
        };
      };
      let window = await measureWindow();
      for (let n = 1; n < MAX_WINDOWS && window.maxLatency > INTERVAL_MS * (1 + JITTER); n++)
        window = await measureWindow();
      const { unhealthy, laggardSamples, laggardUnhealthy, sentByLaggard, perInterval, onTopic } =
        window;
      expect(unhealthy).toEqual([]);
      expect(laggardSamples.length).toBeGreaterThan(0);
      expect(laggardUnhealthy.map((s) => `${s.state} ${s.lastLatencyMs}`)).toEqual([]);
      expect(sentByLaggard).toBe(0);
      // About one sender: at most 1.5 per interval, and enough to keep everyone fresh.
      expect(perInterval).toBeLessThanOrEqual(1.5);
      expect(onTopic).toBeGreaterThanOrEqual(0.5 * WINDOW_INTERVALS);
    }, 180_000);
});
