// stop() against a broker that stops answering (issue #36, suspected defect a): an engine on each
// client reads through the fault proxy; once it is ready, the proxy forwards nothing any more in
// either direction (the broker looks frozen: connections stay open, no request reaches it, no
// answer comes back), and stop() is called. It must end within its bound, with the client's
// default request timeout (30 s), and leave no connection open: before the fix, kafkajs's
// stop-time delete kept retrying past its 2 s bound and disconnecting waited for every request in
// flight, up to the request timeout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BroadcastEngine } from 'nestjs-kafka-broadcast';
import { kafkaClients, groupProtocolOf } from '../support/broker/kafka-clients.js';
import { waitFor } from '../support/broker/kafka.js';
import { startProxiedBroker, type ProxiedBroker } from '../support/broker/proxied-broker.mjs';
import { CapturingLogger } from '../support/engine/capturing-logger.js';

const SESSION_TIMEOUT_MS = 6_000;
/** The consumers' rebalance timeout: the session timeout, at least 10 s. */
const REBALANCE_TIMEOUT_MS = 10_000;
/**
 * What a stop against a frozen broker may take: the group consumer's close, cut at the rebalance
 * timeout (a join in flight ends within it, and a broker silent that long will not answer a
 * leave), and the stop-time delete's 2 s; plus a margin for a loaded host. The port's own close
 * cuts what it still has in flight at once.
 */
const STOP_BOUND_MS = REBALANCE_TIMEOUT_MS + 2_000 + 4_000;

let broker: ProxiedBroker;
const figures: string[] = [];

beforeAll(async () => {
  broker = await startProxiedBroker({ dirPrefix: 'stop-frozen-' });
});

afterAll(async () => {
  console.log(`stop() against a frozen broker:\n  ${figures.join('\n  ')}`);
  await broker?.stop();
});

describe.each(kafkaClients())('stop() on %s against a broker that stopped answering', (client) => {
  it('ends within its bound and leaves no connection open', async () => {
    const logger = new CapturingLogger();
    const engine = new BroadcastEngine(
      {
        kafka: {
          brokers: broker.proxied,
          clientId: `stop-frozen-${client}`,
          client,
          ...groupProtocolOf(client),
        },
        topicPrefix: `stop-frozen-${client}.`,
        lock: false,
        heartbeat: false,
        consumer: {
          sessionTimeoutMs: SESSION_TIMEOUT_MS,
          heartbeatIntervalMs: 500,
          maxWaitTimeMs: 100,
        },
        startupTimeoutMs: 60_000,
      },
      { logger },
    );
    engine.on('frozen.news', () => undefined);
    try {
      await engine.start();
      expect(broker.proxy.connections).toBeGreaterThan(0);
      // From now on nothing passes, either way.
      broker.proxy.onFrame = () => ({ kind: 'drop' });
      const started = Date.now();
      await engine.stop();
      const stopMs = Date.now() - started;
      const open = broker.proxy.connections;
      // A socket the client ended is closed by the proxy a moment later.
      const closedMs = await waitFor(() => broker.proxy.connections === 0, {
        timeoutMs: 5_000,
        intervalMs: 20,
        message: `${broker.proxy.connections} connection(s) still open after stop()`,
      })
        .then(() => Date.now() - started - stopMs)
        .catch(() => Number.NaN);
      if (process.env.STOP_FROZEN_DEBUG)
        console.log(
          broker.proxy.applied
            .filter((a) => a.at >= started)
            .map(
              (a) =>
                `+${a.at - started} c${a.frame.connectionId} ${a.frame.direction} ${a.frame.apiKey}`,
            )
            .join('\n'),
        );
      figures.push(
        `${client}: stop() took ${stopMs} ms; ${open} connection(s) open when it resolved, all closed ${closedMs} ms later`,
      );
      const log = logger.lines.map((l) => `${l.level} ${l.message}`).join('\n');
      expect(stopMs, log).toBeLessThan(STOP_BOUND_MS);
      expect(closedMs, `${figures.at(-1)}\n${log}`).toBeLessThan(1_000);
    } finally {
      broker.proxy.onFrame = undefined;
      await engine.stop();
    }
  });
});
