import { BEGINNING, compareOffsets, ReadPositions } from './read-positions.js';

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

  it('keeps the first snapshot of a start: a later candidate does not move it', () => {
    const positions = new ReadPositions();
    positions.setStart(offsets({ t: { 0: '5' } }));
    expect(positions.hasStart).toBe(true);
    positions.setStart(offsets({ t: { 0: '9' } }));
    expect(positions.positionOf('t', 0)).toBe('5');
    positions.advance('t', 0, '6');
    expect(positions.positionOf('t', 0)).toBe('7');
  });

  it('admits a record only at or after the position, the start snapshot included', () => {
    const positions = new ReadPositions();
    positions.setStart(offsets({ t: { 0: '50' } }));
    expect(positions.admits('t', 0, '49')).toBe(false);
    expect(positions.admits('t', 0, '50')).toBe(true);
    expect(positions.admits('t', 1, '0')).toBe(true); // a partition created after the snapshot
    positions.advance('t', 0, '100');
    expect(positions.admits('t', 0, '100')).toBe(false);
    expect(positions.admits('t', 0, '99')).toBe(false);
    expect(positions.admits('t', 0, '101')).toBe(true);
  });

  it('handles offsets beyond 2^53', () => {
    const positions = new ReadPositions();
    positions.advance('t', 0, '9007199254740993');
    expect(positions.positionOf('t', 0)).toBe('9007199254740994');
    expect(positions.admits('t', 0, '9007199254740993')).toBe(false);
    expect(positions.admits('t', 0, '9007199254740994')).toBe(true);
    expect(compareOffsets('10', '9')).toBeGreaterThan(0);
    expect(compareOffsets('0', '-1')).toBeGreaterThan(0);
    expect(compareOffsets('-1', '0')).toBeLessThan(0);
    // A jump back to offset 0 (a log truncated to nothing) admits offset 0 again.
    positions.advance('t', 3, '50');
    positions.jump('t', 3, '0');
    expect(positions.admits('t', 3, '0')).toBe(true);
    expect(positions.positionOf('t', 3)).toBe('0');
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
