// Cutting a broker's byte stream into whole Kafka frames, over plain buffers. Proven on the real
// broker, through a proxy that resets a Fetch response halfway, in
// test/faults/mid-frame-reset.spec.ts.
import { KafkaResponseFrames } from './kafka-response-frames.js';

/** A frame: its 4-byte size, then `payload`. */
function frame(payload: string): Buffer {
  const body = Buffer.from(payload);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
}

describe('KafkaResponseFrames', () => {
  it('passes whole frames on, several at once, and keeps a partial one until it is complete', () => {
    const frames = new KafkaResponseFrames();
    const a = frame('first response');
    const b = frame('second response');
    const c = frame('third, the one cut in two');
    const stream = Buffer.concat([a, b, c]);
    const cutAt = a.length + b.length + 10;

    expect(frames.push(stream.subarray(0, cutAt))).toEqual(Buffer.concat([a, b]));
    expect(frames.partial).toBe(true);
    expect(frames.describePartial()).toBe(`10 of ${c.length} bytes`);
    expect(frames.push(stream.subarray(cutAt))).toEqual(c);
    expect(frames.partial).toBe(false);
  });

  it('waits for the size prefix itself when a chunk ends inside it', () => {
    const frames = new KafkaResponseFrames();
    const a = frame('abc');
    expect(frames.push(a.subarray(0, 2))).toBeUndefined();
    expect(frames.describePartial()).toBe('2 of at least 4 bytes');
    expect(frames.push(a.subarray(2, 5))).toBeUndefined();
    expect(frames.describePartial()).toBe(`5 of ${a.length} bytes`);
    expect(frames.push(a.subarray(5))).toEqual(a);
  });

  it('reassembles a frame sent one byte at a time, and an empty frame', () => {
    const frames = new KafkaResponseFrames();
    const a = frame('one byte at a time');
    const out: Buffer[] = [];
    for (const byte of a) {
      const whole = frames.push(Buffer.from([byte]));
      if (whole) out.push(whole);
    }
    expect(out).toEqual([a]);
    expect(frames.push(frame(''))).toEqual(frame(''));
  });

  it('refuses a negative size: the stream is not aligned on frames', () => {
    const frames = new KafkaResponseFrames();
    const bad = Buffer.alloc(8);
    bad.writeInt32BE(-7);
    expect(() => frames.push(bad)).toThrow('a Kafka response frame announced -7 bytes');
  });
});
