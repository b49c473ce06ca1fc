import { nextOffset, resumeOffsets } from './resume-offsets.js';

const offsets = (entries: Record<string, Record<number, string>>) =>
  new Map(
    Object.entries(entries).map(([topic, parts]) => [
      topic,
      new Map(Object.entries(parts).map(([p, o]) => [Number(p), o])),
    ]),
  );

describe('resumeOffsets', () => {
  it('starts at the latest offsets on the first allocation', () => {
    const latest = offsets({ t: { 0: '50' } });
    expect(resumeOffsets(latest, undefined, offsets({ t: { 0: '10' } }))).toBe(latest);
  });

  it('resumes right after the last delivered record, else where the previous group started', () => {
    const latest = offsets({ t: { 0: '50', 1: '70', 2: '90' }, hb: { 0: '5' } });
    const previous = offsets({ t: { 0: '30', 1: '60', 2: '95' }, hb: { 0: '5' } });
    const delivered = offsets({ t: { 0: '41' } });
    expect(resumeOffsets(latest, previous, delivered)).toEqual(
      offsets({ t: { 0: '42', 1: '60', 2: '90' }, hb: { 0: '5' } }),
    );
  });

  it('keeps the latest offset for partitions that are new since the previous group', () => {
    const latest = offsets({ t: { 0: '8', 1: '3' } });
    expect(resumeOffsets(latest, offsets({ t: { 0: '2' } }), new Map())).toEqual(
      offsets({ t: { 0: '2', 1: '3' } }),
    );
  });

  it('counts offsets beyond 2^53 exactly', () => {
    expect(nextOffset('9007199254740993')).toBe('9007199254740994');
    expect(nextOffset(undefined)).toBeUndefined();
  });
});
