import { recordTime } from './incoming-message.js';

const record = (timestamp: string) => ({ key: null, value: null, offset: '0', timestamp });

describe('recordTime: a record timestamp as a number (the last conversion reused)', () => {
  it('converts every text, repeated, alternating, or not a number at all', () => {
    const texts = ['1000', '1000', '1001', '1000', '', 'x', '-1', '1001'];
    expect(texts.map((t) => recordTime(record(t)))).toEqual([
      1000,
      1000,
      1001,
      1000,
      0,
      NaN,
      -1,
      1001,
    ]);
  });
});
