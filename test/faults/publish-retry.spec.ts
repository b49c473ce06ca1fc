/**
 * A publish whose acknowledgement is lost, on the real broker: the fault proxy resets the
 * connection as the Produce response starts, after the broker has written the record. The client
 * cannot tell a lost request from a lost answer and sends the record again; without an
 * idempotent producer the broker writes it a second time, and every instance runs its handlers
 * twice for one publish. With one (producer id and sequence numbers), the broker drops the copy.
 */
import { afterAll, beforeAll, onTestFailed, onTestFinished } from 'vitest';
import { EngineHarness } from '../support/engine/engine.js';
import { waitFor } from '../support/broker/kafka.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';
import { startProxiedBroker, type ProxiedBroker } from '../support/broker/proxied-broker.mjs';
import { ApiKey, type FrameInfo } from '../support/broker/tcp-proxy.js';

const TOPIC = 'news';

describe.each(kafkaClients())('a publish whose acknowledgement is lost (%s client)', (client) => {
  let broker: ProxiedBroker;

  beforeAll(async () => {
    broker = await startProxiedBroker({ dirPrefix: 'publish-retry-kafka-' });
  });

  afterAll(async () => {
    await broker?.stop();
  });

  it('is written once, and every handler runs once for it', async () => {
    const h = new EngineHarness('publish-retry', {}, { brokers: broker.direct, client });
    onTestFailed(() => console.log(`---- engine logs of ${h.prefix} ----\n${h.dumpLogs()}`));
    onTestFinished(() => h.cleanup());
    await h.createTopics([{ topic: TOPIC }]);
    const spec = { lock: 'none', topics: [TOPIC], options: { heartbeat: false } } as const;
    const [publisher, reader] = await Promise.all([
      h.start({ ...spec, name: 'publisher', kafka: { brokers: broker.proxied } }),
      h.start({ ...spec, name: 'reader' }),
    ]);
    await h.allReady([publisher, reader]);

    // Only the publisher's connections go through the proxy, and with heartbeats off the only
    // Produce it sends is the publish below.
    let cut: FrameInfo | undefined;
    broker.proxy.onFrame = (frame) => {
      if (cut || frame.direction !== 'response' || frame.apiKey !== ApiKey.Produce)
        return undefined;
      cut = frame;
      return { kind: 'reset' };
    };
    onTestFinished(() => {
      broker.proxy.onFrame = undefined;
    });

    await publisher.engine.publisher.publish(TOPIC, { n: 'once' });
    expect(cut, 'the Produce response was never cut').toBeDefined();
    await publisher.engine.publisher.publish(TOPIC, { n: 'marker' });

    const admin = await h.admin();
    const [end] = await admin.fetchTopicOffsets(h.topic(TOPIC));
    expect(end!.high, 'records written for two publishes').toBe('2');
    for (const e of [publisher, reader]) {
      await waitFor(() => e.payloads(TOPIC).length >= 2, { timeoutMs: 30_000 });
      expect(e.payloads(TOPIC), e.name).toEqual([{ n: 'once' }, { n: 'marker' }]);
    }
  });

  it('a publish that gave up does not cost the next one: that one is written and handled', async () => {
    const h = new EngineHarness('publish-gave-up', {}, { brokers: broker.direct, client });
    onTestFailed(() => console.log(`---- engine logs of ${h.prefix} ----\n${h.dumpLogs()}`));
    onTestFinished(() => h.cleanup());
    await h.createTopics([{ topic: TOPIC }]);
    const spec = { lock: 'none', topics: [TOPIC], options: { heartbeat: false } } as const;
    const [publisher, reader] = await Promise.all([
      h.start({
        ...spec,
        name: 'publisher',
        kafka: { brokers: broker.proxied, requestTimeoutMs: 1_500, retry: { retries: 2 } },
      }),
      h.start({ ...spec, name: 'reader' }),
    ]);
    await h.allReady([publisher, reader]);

    // Every answer to the first publish is lost: the broker writes it, the client gives up.
    let dropping = true;
    broker.proxy.onFrame = (frame) =>
      dropping && frame.direction === 'response' && frame.apiKey === ApiKey.Produce
        ? { kind: 'drop' }
        : undefined;
    onTestFinished(() => {
      broker.proxy.onFrame = undefined;
    });
    await expect(publisher.engine.publisher.publish(TOPIC, { n: 'gave-up' })).rejects.toThrow();
    dropping = false;
    await publisher.engine.publisher.publish(TOPIC, { n: 'next' });

    await waitFor(() => reader.payloads(TOPIC).some((p) => (p as { n: string }).n === 'next'), {
      timeoutMs: 30_000,
      message: `the publish after the one that gave up never arrived: ${JSON.stringify(reader.payloads(TOPIC))}`,
    });
    // The one that gave up was written (once) before its answers were lost.
    expect(reader.payloads(TOPIC)).toEqual([{ n: 'gave-up' }, { n: 'next' }]);
  });
});
