import { describe, expect, it } from 'vitest';
import { RecheckedValue } from './rechecked-value.js';

describe('RecheckedValue', () => {
  it('looks up once, again after everyCalls reads, and at once when asked', () => {
    let lookUps = 0;
    const value = new RecheckedValue(() => ++lookUps, 3);
    expect([value.get(), value.get(), value.get(), value.get()]).toEqual([1, 1, 1, 1]);
    expect(value.get()).toBe(2);
    expect(value.get(true)).toBe(3);
    expect(lookUps).toBe(3);
  });
});
