import {
  createIdStrategy,
  LowestFirstIdStrategy,
  SpreadIdStrategy,
  type IdStrategy,
} from './id-strategy.js';

function drain(strategy: IdStrategy, max = 10_000): number[] {
  const ids: number[] = [];
  for (let id = strategy.next(); id !== undefined; id = strategy.next()) {
    ids.push(id);
    if (ids.length > max) throw new Error('strategy never ran out');
  }
  return ids;
}

/** A seeded PRNG (mulberry32) so the statistical tests are reproducible. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALMOST_ONE = 1 - Number.EPSILON;

describe('SpreadIdStrategy', () => {
  it('draws the first id from the whole pool, not from its lowest ids', () => {
    // random ≈ 1 takes the largest untried id: the pool's last one at once.
    expect(new SpreadIdStrategy(200, () => ALMOST_ONE).next()).toBe(199);
  });

  it('picks the k-th smallest untried id with k = floor(random × untried)', () => {
    const values = [0.5, 0, 0.25];
    const strategy = new SpreadIdStrategy(200, () => values.shift() ?? 0);
    expect(strategy.next()).toBe(100);
    expect(strategy.next()).toBe(0);
    // 198 untried (1..99, 101..199): index floor(49.5) = 49 → 50.
    expect(strategy.next()).toBe(50);
  });

  it('tries the ids a listing saw with members only after every other untried id', () => {
    const strategy = new SpreadIdStrategy(6, seeded(3));
    strategy.hint(new Set([0, 1, 2, 3]));
    expect(strategy.freeLeft).toBe(2);
    const ids = drain(strategy);
    expect(ids.slice(0, 2).sort()).toEqual([4, 5]);
    expect(ids.slice(2).sort()).toEqual([0, 1, 2, 3]);
  });

  it('takes a newer listing into account for the ids not tried yet', () => {
    const strategy = new SpreadIdStrategy(4, () => 0);
    strategy.hint(new Set([0, 1]));
    expect(strategy.next()).toBe(2);
    // Id 0 lost its member, id 3 got one: 0 comes first now, 3 last.
    strategy.hint(new Set([1, 3]));
    expect(drain(strategy)).toEqual([0, 1, 3]);
  });

  it('tries every id exactly once and is exhausted after exactly `limit` draws', () => {
    for (const limit of [200, 57, 10, 7, 3, 1]) {
      const strategy = new SpreadIdStrategy(limit, seeded(limit));
      strategy.hint(new Set([0, 2, 5]));
      const ids = drain(strategy);
      expect(ids).toHaveLength(limit);
      expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: limit }, (_, i) => i));
      expect(strategy.next()).toBeUndefined();
      expect(strategy.next()).toBeUndefined();
    }
  });

  it('is roughly uniform over the whole pool', () => {
    const counts = Array.from({ length: 20 }, () => 0);
    const random = seeded(42);
    const passes = 40_000;
    for (let i = 0; i < passes; i++) counts[new SpreadIdStrategy(20, random).next()!]++;
    // Expected 2000 per id; ±10% is > 7 standard deviations, so this is not flaky.
    for (const count of counts) {
      expect(count).toBeGreaterThan(1800);
      expect(count).toBeLessThan(2200);
    }
  });

  it('tolerates a random source returning values outside [0, 1)', () => {
    const bad = [1, -0.5, Number.NaN, 2];
    const strategy = new SpreadIdStrategy(3, () => bad.shift() ?? 0);
    expect(drain(strategy).sort()).toEqual([0, 1, 2]);
  });

  it('rejects a non-positive or fractional limit', () => {
    expect(() => new SpreadIdStrategy(0)).toThrow(RangeError);
    expect(() => new SpreadIdStrategy(2.5)).toThrow(RangeError);
  });
});

describe('LowestFirstIdStrategy', () => {
  it('yields 0..limit-1 in ascending order, then undefined', () => {
    const strategy = new LowestFirstIdStrategy(5);
    expect(drain(strategy)).toEqual([0, 1, 2, 3, 4]);
    expect(strategy.next()).toBeUndefined();
  });

  it('with limit 1 yields only 0', () => {
    expect(drain(new LowestFirstIdStrategy(1))).toEqual([0]);
  });

  it('rejects a non-positive limit', () => {
    expect(() => new LowestFirstIdStrategy(-1)).toThrow(RangeError);
  });
});

describe('createIdStrategy', () => {
  it('creates the lowest-first strategy', () => {
    expect(drain(createIdStrategy('lowest-first', 3))).toEqual([0, 1, 2]);
  });

  it('creates the random strategy and passes the random source through', () => {
    const strategy = createIdStrategy('random', 50, () => 0);
    expect(strategy).toBeInstanceOf(SpreadIdStrategy);
    // random = 0 always takes the smallest untried id.
    expect(drain(strategy)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('rejects an unknown mode', () => {
    expect(() => createIdStrategy('nope' as 'random', 3)).toThrow(RangeError);
  });
});
