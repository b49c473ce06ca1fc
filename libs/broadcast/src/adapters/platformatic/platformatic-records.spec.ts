import type { RecordsBatch } from '@platformatic/kafka';
import { batchEnd, committedBatches, toIncoming } from './platformatic-records.js';

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

describe('toIncoming: the record as the engine receives it', () => {
  it('gives decimal strings, the create time, and repeated headers as a list', () => {
    const b = batch(41, 1, 1);
    b.records[0]!.headers = [
      [Buffer.from('t'), Buffer.from('a')],
      [Buffer.from('t'), Buffer.from('b')],
      [Buffer.from('u'), Buffer.from('c')],
    ];
    expect(toIncoming(b, b.records[0]!, 41n)).toEqual({
      key: null,
      value: Buffer.from('v41'),
      timestamp: '1000',
      offset: '41',
      headers: { t: [Buffer.from('a'), Buffer.from('b')], u: Buffer.from('c') },
    });
  });

  it('uses the batch max timestamp under LogAppendTime', () => {
    const b = batch(0, 1, 1, 0x08);
    expect(toIncoming(b, b.records[0]!, 0n).timestamp).toBe('2000');
  });
});
