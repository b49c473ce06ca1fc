import type { OutgoingRecord } from '../../../interfaces/kafka-port.interface.js';
import { ReceiptTracker } from './receipt-tracker.js';

const silent = { log: () => undefined, warn: () => undefined, error: () => undefined };

function pair() {
  const sent: { topic: string; records: OutgoingRecord[] }[] = [];
  const send = async (topic: string, records: OutgoingRecord[]) =>
    void sent.push({ topic, records });
  const publisher = new ReceiptTracker('pub', 'p.receipts', send, silent);
  const receiver = (id: string) => new ReceiptTracker(id, 'p.receipts', send, silent);
  /** Delivers every ack sent so far to the publisher, as the receipts topic would. */
  const deliver = () => {
    for (const { records } of sent.splice(0))
      for (const r of records)
        publisher.accept({
          key: r.key === null ? null : Buffer.from(r.key),
          value: Buffer.from(r.value),
          timestamp: '0',
          offset: '0',
        });
  };
  return { publisher, receiver, deliver, sent };
}

describe('ReceiptTracker', () => {
  it('resolves as soon as every expected instance answered, sorting ok and failed', async () => {
    const { publisher, receiver, deliver } = pair();
    const waiting = publisher.expect('r1', 'news', ['b', 'a', 'c'], 60_000);
    receiver('c').acknowledge('pub', 'r1', []);
    receiver('a').acknowledge('pub', 'r1', []);
    receiver('late').acknowledge('pub', 'r1', []); // not expected: ignored
    receiver('b').acknowledge('pub', 'r1', ['h: boom']);
    await Promise.resolve();
    deliver();
    const receipt = await waiting;
    expect(receipt).toMatchObject({
      id: 'r1',
      topic: 'news',
      expected: ['a', 'b', 'c'],
      ok: ['a', 'c'],
      failed: [{ instanceId: 'b', errors: ['h: boom'] }],
      missing: [],
    });
  });

  it('tells of an answer from an instance not expected while the receipt waits, once per answer, never of an expected one', async () => {
    const { publisher, receiver, deliver } = pair();
    const strangers: string[] = [];
    const waiting = publisher.expect('r5', 'news', ['a', 'b'], 60_000, [], (id) =>
      strangers.push(id),
    );
    receiver('a').acknowledge('pub', 'r5', []);
    receiver('a').acknowledge('pub', 'r5', []); // a duplicate: neither counted twice nor a stranger
    receiver('late').acknowledge('pub', 'r5', []);
    await Promise.resolve();
    deliver();
    expect(strangers).toEqual(['late']);
    receiver('b').acknowledge('pub', 'r5', []);
    receiver('later').acknowledge('pub', 'r5', []); // after it resolved: nobody to tell
    await Promise.resolve();
    deliver();
    expect((await waiting).ok).toEqual(['a', 'b']);
    expect(strangers).toEqual(['late']);
  });

  it('lists who never answered once the timeout passed', async () => {
    const { publisher, receiver, deliver } = pair();
    const waiting = publisher.expect('r2', 'news', ['a', 'b'], 50);
    receiver('a').acknowledge('pub', 'r2', []);
    await Promise.resolve();
    deliver();
    const receipt = await waiting;
    expect(receipt.ok).toEqual(['a']);
    expect(receipt.missing).toEqual(['b']);
    expect(receipt.elapsedMs).toBeGreaterThanOrEqual(0);
  });

  it('ignores acks keyed for another publisher and malformed values; nobody expected resolves at once', async () => {
    const { publisher } = pair();
    const waiting = publisher.expect('r3', 'news', ['a'], 50);
    publisher.accept({
      key: Buffer.from('other'),
      value: Buffer.from('{"r":"r3","i":"a"}'),
      timestamp: '0',
      offset: '0',
    });
    publisher.accept({
      key: Buffer.from('pub'),
      value: Buffer.from('not json'),
      timestamp: '0',
      offset: '0',
    });
    expect((await waiting).missing).toEqual(['a']);
    expect((await publisher.expect('r4', 'news', [], 60_000)).expected).toEqual([]);
  });

  it("counts the publisher's own answer at once, without sending it to the receipts topic", async () => {
    const { publisher, receiver, deliver, sent } = pair();
    const waiting = publisher.expect('r6', 'news', ['a', 'pub'], 60_000);
    publisher.acknowledge('pub', 'r6', ['h: boom']);
    expect(sent).toEqual([]);
    receiver('a').acknowledge('pub', 'r6', []);
    await Promise.resolve();
    expect(sent.map((s) => s.records.length)).toEqual([1]);
    deliver();
    expect(await waiting).toMatchObject({
      ok: ['a'],
      failed: [{ instanceId: 'pub', errors: ['h: boom'] }],
      missing: [],
    });
    // A late own answer (the receipt already resolved) is dropped like anyone's.
    publisher.acknowledge('pub', 'r6', []);
    expect(sent).toEqual([]);
  });

  it('stop() resolves open receipts with what they have', async () => {
    const { publisher } = pair();
    const waiting = publisher.expect('r5', 'news', ['a'], 60_000);
    publisher.stop();
    expect((await waiting).missing).toEqual(['a']);
  });
});

describe('ReceiptTracker: malformed acknowledgements', () => {
  it('logs, counts and skips every malformed ack, and still resolves the receipt', async () => {
    const { publisher, receiver, deliver } = pair();
    const waiting = publisher.expect('r9', 'news', ['a'], 60_000);
    const own = Buffer.from('pub');
    for (const value of [
      'null',
      '123',
      '"x"',
      '{}',
      '{"r":5}',
      '[1]',
      '{"r":"r9","i":7}',
      '{',
      'true',
    ])
      expect(() =>
        publisher.accept({ key: own, value: Buffer.from(value), timestamp: '0', offset: '0' }),
      ).not.toThrow();
    expect(publisher.malformed).toBe(9);
    receiver('a').acknowledge('pub', 'r9', []);
    await Promise.resolve();
    deliver();
    expect((await waiting).ok).toEqual(['a']);
  });
});
