// A flaky broker must never crash the process. Engines start at once through a proxy that, for a
// while, resets or swallows (request timeout) their Metadata, ListOffsets and ApiVersions requests
// (the last makes connection attempts time out): every client promise the adapter creates must be
// awaited or caught, so no rejection may go unhandled, and every engine must become ready in a
// group of its own once the faults stop. Seeded: SCALE2_SEED=<seed> replays a trial.
import { ApiKey, type FaultAction, type FrameInfo } from '../support/broker/tcp-proxy.js';
import { startProxiedBroker, type ProxiedBroker } from '../support/broker/proxied-broker.mjs';
import { seededRandom } from '../support/faults/seam-faults.js';
import type { TestEngine } from '../support/engine/engine.js';
import { faultEngines } from '../support/faults/faults.js';
import { testPrefix } from '../support/broker/kafka.js';
import { clientScoped, kafkaClients } from '../support/broker/kafka-clients.js';

const ENGINES = 6;
const TRIALS = 3;
const FAULTY = [ApiKey.Metadata, ApiKey.ListOffsets, ApiKey.ApiVersions] as number[];
let broker: ProxiedBroker;
const unhandled: unknown[] = [];
const track = (reason: unknown) => void unhandled.push(reason);

beforeAll(async () => {
  process.on('unhandledRejection', track);
  broker = await startProxiedBroker({ dirPrefix: 'scale2-kafka-' });
});

afterAll(async () => {
  process.off('unhandledRejection', track);
  await broker?.stop();
});

/** Breaks about half of the faulty requests until `budget` faults were applied. */
function flaky(seed: number, budget: number) {
  const rnd = seededRandom(seed);
  let applied = 0;
  return (frame: FrameInfo): FaultAction | undefined => {
    if (applied >= budget || frame.direction !== 'request' || !FAULTY.includes(frame.apiKey))
      return undefined;
    if (rnd() < 0.5) return undefined;
    applied++;
    return rnd() < 0.6 ? { kind: 'reset' } : { kind: 'drop' };
  };
}

// One private broker for both clients.
describe.each(kafkaClients())('engines starting against a flaky broker (%s client)', (client) => {
  const seeds = process.env.SCALE2_SEED
    ? [Number(process.env.SCALE2_SEED)]
    : Array.from({ length: TRIALS }, (_, i) => 1_000 + i * 7_919);

  it.each(seeds)(
    'seed %i: no unhandled rejection, all ready in distinct groups',
    async (seed) => {
      const prefix = testPrefix(clientScoped(`scale2-flaky-${seed}`, client));
      const engines = faultEngines(prefix, broker.proxied, client);
      try {
        const created: TestEngine[] = [];
        for (let n = 0; n < ENGINES; n++)
          created.push(
            await engines.create({
              name: `f${n}`,
              lock: 'none',
              topics: ['news'],
              // Short timeouts, so a swallowed request fails fast.
              kafka: { connectionTimeoutMs: 500, requestTimeoutMs: 1_000 },
              options: { startupTimeoutMs: 90_000 },
            }),
          );
        broker.proxy.onFrame = flaky(seed, 40);
        const results = await Promise.allSettled(created.map((e) => engines.startEngine(e)));
        const faults = broker.proxy.applied.length;
        broker.proxy.onFrame = undefined;
        // Give late losers of kafkajs's internal races a turn to reject.
        await new Promise((resolve) => setTimeout(resolve, 2_000));

        expect(faults, 'the proxy broke requests').toBeGreaterThan(0);
        expect(unhandled.map(String)).toEqual([]);
        expect(results.filter((r) => r.status === 'rejected').map((r) => String(r.reason))).toEqual(
          [],
        );
        const groups = created.map((e) => e.engine.reader.status().groupId);
        expect(new Set(groups).size).toBe(ENGINES);
      } finally {
        broker.proxy.onFrame = undefined;
        broker.proxy.applied.length = 0;
        unhandled.length = 0;
        await engines.cleanup();
      }
    },
    240_000,
  );
});
