// Where a partition continues after OFFSET_OUT_OF_RANGE, judged against the log's bounds: below
// the log start, above the high watermark (truncated), or inside. Proven on the real broker in
// test/faults/offset-out-of-range.spec.ts.
import type { KafkaAdminPort, OffsetBounds } from '../../interfaces/kafka-port.interface.js';
import { resumeOutOfRange } from './out-of-range.js';
import { ReadPositions } from './read-positions.js';

function setup(bounds: OffsetBounds | undefined, byTimestamp?: Map<number, string>) {
  const warnings: { message: string; fields: unknown }[] = [];
  const asked: number[] = [];
  const admin = {
    offsetBounds: async () => new Map(bounds ? [[0, bounds]] : []),
    offsetsForTimestamp: byTimestamp
      ? async (_topic: string, timestamp: number) => (asked.push(timestamp), byTimestamp)
      : undefined,
  } as unknown as KafkaAdminPort;
  const logger = {
    log: () => undefined,
    warn: (message: string, fields?: unknown) => void warnings.push({ message, fields }),
    error: () => undefined,
  };
  const positions = new ReadPositions();
  positions.setStart(new Map([['t', new Map([[0, '100']])]]));
  const resume = () => resumeOutOfRange({ admin, positions, logger }, 't', 0);
  return { positions, warnings, asked, resume };
}

describe('resumeOutOfRange', () => {
  it('below the log start: continues there, the gap logged with its size and counted', async () => {
    const { positions, warnings, resume } = setup({ low: '130', high: '200' });
    expect(await resume()).toBe('130');
    expect(positions.positionOf('t', 0)).toBe('130');
    expect(positions.passedOver).toBe(30);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toContain('t[0]@100..129 were removed from the log');
    expect(warnings[0]!.fields).toMatchObject({
      topic: 't',
      partition: 0,
      offset: '100',
      lost: 30,
    });
  });

  it('inside the log: continues at the position, which does not move', async () => {
    const { positions, warnings, resume } = setup({ low: '0', high: '200' });
    expect(await resume()).toBe('100');
    expect(positions).toMatchObject({ passedOver: 0, rewinds: 0 });
    expect(warnings[0]!.message).toContain('the log holds 0..200; continuing at 100');
  });

  it('above the high watermark (truncated): from the first record stamped at or after the last one seen', async () => {
    const { positions, warnings, asked, resume } = setup(
      { low: '10', high: '90' },
      new Map([[0, '85']]),
    );
    positions.advance('t', 0, '99');
    positions.reached('t', 0, '100', '5000');
    expect(await resume()).toBe('85');
    expect(asked).toEqual([5000]);
    expect(positions.positionOf('t', 0)).toBe('85');
    expect(positions.rewinds).toBe(1);
    expect(warnings[0]!.message).toContain('ends at 90, before the position 100 (truncated)');
  });

  it('truncated, the timestamp lookup is clamped to the log', async () => {
    const { positions, resume } = setup({ low: '10', high: '90' }, new Map([[0, '3']]));
    positions.reached('t', 0, '100', '5000');
    expect(await resume()).toBe('10');
  });

  it('truncated, with no timestamp known: continues at the high watermark', async () => {
    const { asked, resume } = setup({ low: '10', high: '90' }, new Map([[0, '20']]));
    expect(await resume()).toBe('90');
    expect(asked).toEqual([]);
  });

  it('a partition the broker does not list: fails (the consumer retries), position untouched', async () => {
    const { positions, resume } = setup(undefined);
    await expect(resume()).rejects.toThrow('no offsets for t[0]');
    expect(positions.positionOf('t', 0)).toBe('100');
  });
});
