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
  });
});
