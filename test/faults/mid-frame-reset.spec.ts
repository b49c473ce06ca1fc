/**
 * A connection reset in the middle of a response frame, on the real broker: the fault proxy
 * forwards the first half of a Fetch response that carries records, then resets the connection.
 * The client must treat the half frame as lost with its connection, reconnect, fetch again and
 * go on; nothing may be skipped, and nothing may escape as an uncaught exception (which would
 * crash an application).
 *
 * kafkajs 2.2.4 keeps the bytes of a frame it has not finished in its Connection object, which
 * outlives the socket: after a reconnect the new socket's bytes were read as the rest of the old
 * frame, every later frame boundary was wrong, and a size read from the middle of a response
 * threw `RangeError: Attempt to access memory outside buffer bounds` from the socket's data
 * handler. Whether a client hit it depended on how Node reported the reset: libuv 1.46 (Node 20)
 * mostly reports data followed by RST as an end of stream, and kafkajs then drops the whole
 * Broker object; libuv 1.52 (Node 24) reports ECONNRESET, kafkajs keeps the Connection.
 */
import { afterAll, beforeAll, onTestFailed, onTestFinished } from 'vitest';
import { EngineHarness } from '../support/engine/engine.js';
import { waitFor } from '../support/broker/kafka.js';
import { kafkaClients, type BroadcastKafkaClient } from '../support/broker/kafka-clients.js';
import { startProxiedBroker, type ProxiedBroker } from '../support/broker/proxied-broker.mjs';
import { ApiKey, type FrameInfo } from '../support/broker/tcp-proxy.js';

const TOPIC = 'seq';

/** Uncaught exceptions of this process while the test runs (Vitest reports them too). */
function recordUncaught(): Error[] {
  const uncaught: Error[] = [];
  const listener = (error: Error) => uncaught.push(error);
  process.on('uncaughtException', listener);
  onTestFinished(() => {
    process.off('uncaughtException', listener);
  });
  return uncaught;
}

describe.each(kafkaClients())('a Fetch response cut by a reset mid-frame (%s client)', (client) => {
  let broker: ProxiedBroker;

  beforeAll(async () => {
    broker = await startProxiedBroker({ dirPrefix: 'midframe-kafka-' });
  });

  afterAll(async () => {
    await broker?.stop();
  });

  function harness(name: string, c: BroadcastKafkaClient): EngineHarness {
    const h = new EngineHarness(name, {}, { brokers: broker.direct, client: c });
    onTestFailed(() => console.log(`---- engine logs of ${h.prefix} ----\n${h.dumpLogs()}`));
    onTestFinished(() => h.cleanup());
    return h;
  }

  it('reconnects and receives every record, without an uncaught exception', async () => {
    const uncaught = recordUncaught();
    const h = harness('midframe', client);
    await h.createTopics([{ topic: TOPIC }]);
    const e = await h.start({
      lock: 'none',
      topics: [TOPIC],
      kafka: { brokers: broker.proxied, requestTimeoutMs: 5_000 },
    });

    let cut: FrameInfo | undefined;
    broker.proxy.onFrame = (frame) => {
      if (cut || frame.direction !== 'response' || frame.apiKey !== ApiKey.Fetch) return undefined;
      // The proxy reads where a Fetch response's records are. (A size threshold of 300 bytes
      // stopped matching once an instance fetched its receipts topic only with a receipt
      // pending: five small records and one topic took 298 bytes.)
      if (!frame.recordBytes) return undefined;
      cut = frame;
      return { kind: 'reset', afterBytes: Math.floor(frame.bytes / 2) };
    };
    onTestFinished(() => {
      broker.proxy.onFrame = undefined;
    });

    const names = () => e.payloads(TOPIC).map((p) => (p as { n: string }).n);
    await h.sendJson(
      TOPIC,
      [1, 2, 3, 4, 5].map((i) => ({ n: `live-${i}` })),
    );
    await waitFor(() => cut, { message: 'no Fetch response with records was cut' });
    await h.sendJson(
      TOPIC,
      [6, 7, 8, 9, 10].map((i) => ({ n: `live-${i}` })),
    );
    await waitFor(() => names().includes('live-10') || uncaught.length > 0, {
      timeoutMs: 30_000,
      message: `live-10 never arrived after the cut; received ${JSON.stringify(names())}`,
    });

    expect(uncaught.map((error) => `${error.name}: ${error.message}`)).toEqual([]);
    expect(names()).toEqual(Array.from({ length: 10 }, (_, i) => `live-${i + 1}`));
    // The client reconnects and fetches again by itself: the engine never had to restart it.
    // (Before the fix, kafkajs read the new socket's bytes as the rest of the cut frame, logged
    // "Response without match", and its Fetch timed out until the consumer crashed.)
    expect(e.logger.matching(/^Broadcast consumer of .* stopped/, 'warn')).toEqual([]);
    expect(e.status()).toMatchObject({ state: 'ready', received: 10 });
  });
});
