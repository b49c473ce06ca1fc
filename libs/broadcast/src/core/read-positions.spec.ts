import { BEGINNING, ReadPositions } from './read-positions.js';

const offsets = (entries: Record<string, Record<number, string>>) =>
  new Map(
    Object.entries(entries).map(([topic, parts]) => [
      topic,
      new Map(Object.entries(parts).map(([p, o]) => [Number(p), o])),
    ]),
  );

describe('ReadPositions', () => {
  it('reads from the start snapshot until something was handed over, then right after it', () => {
    const positions = new ReadPositions();
    positions.setStart(offsets({ t: { 0: '50', 1: '70' } }));
    expect(positions.positionOf('t', 0)).toBe('50');
    positions.advance('t', 0, '57');
    expect(positions.positionOf('t', 0)).toBe('58');
    expect(positions.positionOf('t', 1)).toBe('70');
  });

  it('reads a partition (or topic) missing from the snapshot from its beginning, not latest', () => {
    const positions = new ReadPositions();
    positions.setStart(offsets({ t: { 0: '50' } }));
    expect(positions.positionOf('t', 1)).toBe(BEGINNING);
    expect(positions.positionOf('other', 0)).toBe(BEGINNING);
  });

  it('takes a new snapshot per startup attempt, and keeps it once fixed', () => {
    const positions = new ReadPositions();
    positions.setStart(offsets({ t: { 0: '5' } }));
    positions.advance('t', 0, '6');
    positions.setStart(offsets({ t: { 0: '9' } }));
    expect(positions.positionOf('t', 0)).toBe('9');
    positions.fix();
    positions.advance('t', 0, '12');
    positions.setStart(offsets({ t: { 0: '99' } }));
    expect(positions.positionOf('t', 0)).toBe('13');
    expect(positions.isFixed).toBe(true);
  });

  it('handles offsets beyond 2^53', () => {
    const positions = new ReadPositions();
    positions.advance('t', 0, '9007199254740993');
    expect(positions.positionOf('t', 0)).toBe('9007199254740994');
  });

  it('reads through filtered records: past the last handed over, forward only, with its timestamp', () => {
    const positions = new ReadPositions();
    positions.setStart(offsets({ t: { 0: '10' } }));
    expect(positions.readThrough('t', 0)).toBeUndefined();
    positions.advance('t', 0, '11');
    expect(positions.readThrough('t', 0)).toBe(12n);
    positions.reached('t', 0, '14', '1000'); // a transaction marker at 12..13
    expect(positions.readThrough('t', 0)).toBe(14n);
    positions.reached('t', 0, '13', '900'); // late and lower: ignored
    positions.reached('t', 0, '16'); // a filtered batch: no timestamp of its own
    expect(positions.lastTimestamp('t', 0)).toBe('1000');
    expect(positions.readThrough('t', 0)).toBe(16n);
    positions.advance('t', 0, '20');
    expect(positions.readThrough('t', 0)).toBe(21n);
    // Reading past filtered records does not move where a rejoin reads from.
    expect(positions.positionOf('t', 0)).toBe('21');
  });

  it('jumps where the log continues: counts records passed over, and rewinds', () => {
    const positions = new ReadPositions();
    positions.setStart(offsets({ t: { 0: '10', 1: '50' } }));
    positions.reached('t', 0, '12', '1000');
    positions.jump('t', 0, '25');
    expect(positions.positionOf('t', 0)).toBe('25');
    expect(positions.readThrough('t', 0)).toBe(25n);
    expect(positions.lastTimestamp('t', 0)).toBeUndefined();
    expect(positions.passedOver).toBe(15);
    positions.jump('t', 1, '40');
    expect(positions.positionOf('t', 1)).toBe('40');
    positions.jump('t', 1, '40');
    expect(positions).toMatchObject({ passedOver: 15, rewinds: 1 });
    positions.jump('t', 2, '0'); // a partition never read, at its beginning: no move at all
    expect(positions).toMatchObject({ passedOver: 15, rewinds: 1 });
    expect(positions.positionOf('t', 2)).toBe('0');
  });
});
