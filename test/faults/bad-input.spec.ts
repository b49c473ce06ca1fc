// Bad input from a foreign producer (a raw kafkajs producer writing to the prefixed topic):
// non-JSON, empty and null values, binary garbage, null keys, a ~1 MB value, binary header
// values. Every instance logs, counts and skips each bad record and delivers the good ones.
import type { Producer } from 'kafkajs';
import { connectedProducer, faultEngines, recordReliability } from '../support/faults/faults.js';
import type { EngineHarness, TestEngine } from '../support/engine/engine.js';
import { kafkaBrokers, testPrefix, waitFor } from '../support/broker/kafka.js';
import { clientScoped, kafkaClients } from '../support/broker/kafka-clients.js';

const TOPIC = 'news';
const brokers = kafkaBrokers();
// A valid JSON document of exactly 1,000,000 bytes; with the record and batch overhead it stays
// under the broker's default max.message.bytes (1,048,588).
const BIG_BYTES = 1_000_000;
const bigPayload = (() => {
  const shell = JSON.stringify({ n: 3, blob: '' });
  return { n: 3, blob: 'x'.repeat(BIG_BYTES - shell.length) };
})();

describe.each(kafkaClients())('bad input from a foreign producer (%s client)', (client) => {
  let engines: EngineHarness | undefined;
  let producer: Producer | undefined;

  afterEach(async () => {
    await producer?.disconnect();
    await engines?.cleanup();
  });

  it('skips, counts and logs each bad record, and delivers exactly the good ones', async () => {
    expect(JSON.stringify(bigPayload)).toHaveLength(BIG_BYTES);
    const prefix = testPrefix(clientScoped('faults-bad-input', client));
    engines = faultEngines(prefix, brokers, client);
    const instances: TestEngine[] = [];
    for (const name of ['a', 'b'])
      instances.push(await engines.create({ name, lock: 'postgres', topics: [TOPIC] }));
    await Promise.all(instances.map((e) => engines!.startEngine(e)));
    producer = await connectedProducer(brokers);

    type Raw = {
      value: string | Buffer | null;
      key?: string | null;
      headers?: Record<string, string | Buffer>;
      good?: unknown;
    };
    const records: Raw[] = [
      { value: JSON.stringify({ n: 1 }), key: 'k1', good: { n: 1 } },
      { value: 'this is not JSON {' },
      { value: JSON.stringify({ n: 2 }), key: null, good: { n: 2 } },
      { value: '' },
      { value: null },
      { value: JSON.stringify(bigPayload), key: null, good: bigPayload },
      {
        value: JSON.stringify({ n: 4 }),
        headers: {
          bin: Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x01]),
          text: 'plain',
        },
        good: { n: 4 },
      },
      { value: '{"truncated": ' },
      { value: Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28]) },
      { value: 'undefined' },
      { value: JSON.stringify({ n: 5 }), good: { n: 5 } },
    ];
    const good = records.filter((r) => r.good !== undefined).map((r) => r.good);
    const bad = records.length - good.length;
    // One send per record, in order, so each is its own batch (the 1 MB one too).
    for (const r of records) {
      await producer.send({
        topic: prefix + TOPIC,
        acks: -1,
        messages: [{ value: r.value, key: r.key ?? null, headers: r.headers }],
      });
    }

    await waitFor(() => instances.every((e) => e.payloads(TOPIC).length >= good.length), {
      timeoutMs: 30_000,
      message: `good records not delivered: ${instances.map((e) => e.payloads(TOPIC).length).join(', ')}\n${engines.dumpLogs()}`,
    });
    await waitFor(() => instances.every((e) => e.engine.reader.status().skipped >= bad), {
      timeoutMs: 10_000,
      message: 'bad records not all counted',
    });
    for (const e of instances) {
      // Exactly the good ones, in order, each once.
      expect(e.payloads(TOPIC)).toEqual(good);
      const status = e.engine.reader.status();
      expect(status).toMatchObject({
        state: 'ready',
        received: good.length,
        skipped: bad,
        failed: 0,
      });
      expect(
        e.logger.matching(/^Skipped broadcast: .*(empty value|not valid JSON)/, 'warn'),
      ).toHaveLength(bad);
      const messages = e.messages.get(TOPIC)!.map((m) => m.message);
      expect(messages[0]!.key).toBe('k1');
      expect(messages[1]!.key).toBeNull();
      expect(messages[2]!.key).toBeNull();
      // Binary header values arrive (as text) without breaking delivery.
      expect(messages[3]!.headers.text).toBe('plain');
      expect(typeof messages[3]!.headers.bin).toBe('string');
      expect(e.logger.matching(/.*/, 'error')).toEqual([]);
    }

    // Still delivering afterwards.
    await producer.send({
      topic: prefix + TOPIC,
      acks: -1,
      messages: [{ value: JSON.stringify({ n: 6 }) }],
    });
    await waitFor(() => instances.every((e) => e.payloads(TOPIC).length === good.length + 1), {
      timeoutMs: 20_000,
      message: 'delivery stopped after the bad records',
    });

    recordReliability({
      scenario: clientScoped('bad-input', client),
      instances: instances.length,
      crashes: 0,
      sent: records.length + 1,
      goodSent: good.length + 1,
      badSent: bad,
      received: instances.reduce((sum, e) => sum + e.payloads(TOPIC).length, 0),
      deliveriesExpected: instances.length * (good.length + 1),
      lost: 0,
      skipped: instances.map((e) => e.engine.reader.status().skipped),
      bigValueBytes: BIG_BYTES,
      groupsBefore: 0,
      groupsAfter: instances.length,
      recoverMs: null,
    });
  });
});
