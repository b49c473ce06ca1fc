// Issue #23, defect 3: an exception that escapes the engine's sink (here: a logger that throws
// while the engine reports a failed handler) must not make the client hand the record over
// again. kafkajs retries eachBatch from the last resolved offset on any error, up to
// `retry.retries` times; the @platformatic/kafka adapter's fetch loop would fetch again from the
// position it holds. The sink is the one guard of positions, so it must never throw and must
// refuse a record below the engine's position.
import { useEngineHarness } from '../support/engine/engine.js';
import { waitFor } from '../support/broker/kafka.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';

const TOPIC = 'escaping';

describe.each(kafkaClients())('an exception inside the sink (%s client)', (client) => {
  it('a throwing logger does not make the client hand a record over again', async () => {
    const harness = useEngineHarness('escaping-errors', undefined, client);
    const calls: number[] = [];
    const local = await harness.create({
      lock: 'none',
      topics: [TOPIC],
      register: (engine) =>
        engine.on(TOPIC, (payload: { n: number }) => {
          calls.push(payload.n);
          throw new Error(`handler failed on ${payload.n}`);
        }),
    });
    // The application's logger throws whenever the engine reports an error (a broken transport).
    const record = local.logger.error.bind(local.logger);
    local.logger.error = (message: string, stack?: string) => {
      record(message, stack);
      throw new Error('logger transport broke');
    };
    await harness.startEngine(local);
    await harness.sendJson(TOPIC, [{ n: 1 }, { n: 2 }, { n: 3 }]);
    await waitFor(() => local.payloads(TOPIC).length >= 3, {
      timeoutMs: 30_000,
      message: `collector got ${JSON.stringify(local.payloads(TOPIC))}`,
    });
    // One more record after them proves reading went on; every record was handed over once.
    await harness.sendJson(TOPIC, [{ n: 4 }]);
    await waitFor(() => local.payloads(TOPIC).some((p) => (p as { n: number }).n === 4), {
      timeoutMs: 30_000,
      message: `collector got ${JSON.stringify(local.payloads(TOPIC))}`,
    });
    expect(calls).toEqual([1, 2, 3, 4]);
    expect(local.payloads(TOPIC)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    expect(local.status()).toMatchObject({ state: 'ready', failed: 4 });
  });
});
