import type { RecordsBatch } from '@platformatic/kafka';
import type { IncomingRecord } from '../../interfaces/kafka-port.interface.js';
import {
  batchEnd,
  committedBatches,
  firstDeltaFrom,
  handOverRecords,
  incomingOf,
} from './platformatic-records.js';

const TRANSACTIONAL = 0x10;
const CONTROL = 0x20;

/** A batch of `count` records from `firstOffset`, of producer `producerId`. */
function batch(
  firstOffset: number,
  count: number,
  producerId: number,
  attributes = 0,
): RecordsBatch {
  return {
    firstOffset: BigInt(firstOffset),
    lastOffsetDelta: count - 1,
    attributes,
    producerId: BigInt(producerId),
    firstTimestamp: 1_000n,
    maxTimestamp: 2_000n,
    records: Array.from({ length: count }, (_, i) => ({
      length: 0,
      attributes: 0,
      timestampDelta: BigInt(i),
      offsetDelta: i,
      key: null,
      value: Buffer.from(`v${firstOffset + i}`),
      headers: [],
    })),
  } as unknown as RecordsBatch;
}

/** A transaction marker: key = version 0, type 0 (abort) or 1 (commit). */
function marker(offset: number, producerId: number, type: 'abort' | 'commit'): RecordsBatch {
  const b = batch(offset, 1, producerId, TRANSACTIONAL | CONTROL);
  const key = Buffer.alloc(4);
  key.writeInt16BE(type === 'abort' ? 0 : 1, 2);
  b.records[0]!.key = key;
  return b;
}

const offsets = (batches: RecordsBatch[]) => batches.map((b) => Number(b.firstOffset));

describe('committedBatches: what of a Fetch answer may reach the sink', () => {
  it('skips an aborted transaction between committed ones of the same producer, and every marker', () => {
    const batches = [
      batch(0, 2, 7, TRANSACTIONAL), // c-1, c-2
      marker(2, 7, 'commit'),
      batch(3, 2, 7, TRANSACTIONAL), // a-1, a-2
      marker(5, 7, 'abort'),
      batch(6, 1, 7, TRANSACTIONAL), // c-3
      marker(7, 7, 'commit'),
    ];
    const kept = committedBatches(batches, [{ producerId: 7n, firstOffset: 3n }]);
    expect(offsets(kept)).toEqual([0, 6]);
    expect(batchEnd(batches.at(-1)!)).toBe(8n);
  });

  it('keeps skipping an aborted transaction whose marker is not in this answer yet', () => {
    const kept = committedBatches(
      [batch(0, 1, 3), batch(1, 2, 7, TRANSACTIONAL)],
      [{ producerId: 7n, firstOffset: 1n }],
    );
    expect(offsets(kept)).toEqual([0]);
  });

  it('keeps non-transactional batches and other producers inside an aborted range', () => {
    const kept = committedBatches(
      [
        batch(0, 1, 7, TRANSACTIONAL),
        batch(1, 1, 8, TRANSACTIONAL),
        batch(2, 1, 9),
        marker(3, 7, 'abort'),
      ],
      [{ producerId: 7n, firstOffset: 0n }],
    );
    expect(offsets(kept)).toEqual([1, 2]);
  });
});

describe('incomingOf: the records of a batch as the engine receives them', () => {
  it('gives decimal strings, the create time, and repeated headers as a list', () => {
    const b = batch(41, 1, 1);
    b.records[0]!.headers = [
      [Buffer.from('t'), Buffer.from('a')],
      [Buffer.from('t'), Buffer.from('b')],
      [Buffer.from('u'), Buffer.from('c')],
    ];
    expect(incomingOf(b)(b.records[0]!)).toEqual({
      key: null,
      value: Buffer.from('v41'),
      timestamp: '1000',
      offset: '41',
      headers: { t: [Buffer.from('a'), Buffer.from('b')], u: Buffer.from('c') },
    });
  });

  it('uses the batch max timestamp under LogAppendTime', () => {
    const b = batch(0, 1, 1, 0x08);
    expect(incomingOf(b)(b.records[0]!).timestamp).toBe('2000');
  });

  it('gives each record its own offset and timestamp, a repeated timestamp delta included', () => {
    const b = batch(7, 4, 1);
    b.records[2]!.timestampDelta = 1n; // the same delta as the record before
    const toIncoming = incomingOf(b);
    const got = b.records.map((r) => toIncoming(r));
    expect(got.map((r) => [r.offset, r.timestamp])).toEqual([
      ['7', '1000'],
      ['8', '1001'],
      ['9', '1001'],
      ['10', '1003'],
    ]);
  });

  it('is exact beyond 2^53: offsets and timestamps as the client gives them, as BigInt', () => {
    const b = batch(0, 2, 1);
    b.firstOffset = 2n ** 62n + 1n;
    b.firstTimestamp = 2n ** 60n + 1n;
    b.records[1]!.timestampDelta = -(2n ** 61n);
    const toIncoming = incomingOf(b);
    expect(b.records.map((r) => toIncoming(r))).toMatchObject([
      { offset: (2n ** 62n + 1n).toString(), timestamp: (2n ** 60n + 1n).toString() },
      { offset: (2n ** 62n + 2n).toString(), timestamp: (2n ** 60n + 1n - 2n ** 61n).toString() },
    ]);
  });

  it('is exact for a timestamp delta no double holds, even when the sum would fit one', () => {
    const b = batch(0, 1, 1);
    b.firstTimestamp = 2n ** 52n;
    b.records[0]!.timestampDelta = -(2n ** 53n + 1n);
    expect(incomingOf(b)(b.records[0]!).timestamp).toBe((2n ** 52n - 2n ** 53n - 1n).toString());
  });
});

describe('firstDeltaFrom: the records of a batch already handed over', () => {
  it('skips what lies before the position, all or nothing at the edges', () => {
    const b = batch(10, 5, 1);
    expect([5n, 10n, 12n, 14n, 15n, 99n].map((from) => firstDeltaFrom(b, from))).toEqual([
      0, 0, 2, 4, 5, 5,
    ]);
  });
});

describe('handOverRecords: one partition answer to the sink', () => {
  const answer = { records: [batch(0, 2, 1), batch(2, 3, 1)], abortedTransactions: [] };

  it('hands over from the position on, in order, and sets the position past the last one', async () => {
    const position = { offset: 1n };
    const got: string[] = [];
    const timestamp = await handOverRecords(
      answer,
      position,
      (r) => void got.push(r.offset),
      () => false,
    );
    expect({ got, position: position.offset, timestamp }).toEqual({
      got: ['1', '2', '3', '4'],
      position: 5n,
      timestamp: '1002',
    });
  });

  it('a sink that throws: the position stays past the records handed over before it', async () => {
    const position = { offset: 0n };
    const sink = (r: IncomingRecord) => {
      if (r.offset === '3') return Promise.reject(new Error('sink failed'));
    };
    await expect(handOverRecords(answer, position, sink, () => false)).rejects.toThrow(
      'sink failed',
    );
    expect(position.offset).toBe(3n);
  });

  it('stops as soon as stale() turns true, and leaves the record it was handing over uncounted', async () => {
    const position = { offset: 0n };
    const got: string[] = [];
    await handOverRecords(
      answer,
      position,
      (r) => void got.push(r.offset),
      () => got.length >= 2,
    );
    // stale() turned true while '1' was in the sink: a seek replaced the position meanwhile.
    expect({ got, position: position.offset }).toEqual({ got: ['0', '1'], position: 1n });
  });
});
