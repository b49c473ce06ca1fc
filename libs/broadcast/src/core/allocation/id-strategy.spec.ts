import {
  createIdStrategy,
  LowestFirstIdStrategy,
  RandomGrowingIdStrategy,
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

describe('RandomGrowingIdStrategy', () => {
  it('grows the pool 10 → 20 → 40 → 80 → 161 → 200 with the default limit', () => {
    const strategy = new RandomGrowingIdStrategy(undefined, seeded(1));
    const sizes: number[] = [];
    for (let i = 0; i < 8; i++) {
      strategy.next();
      sizes.push(strategy.poolSize);
    }
    expect(sizes).toEqual([10, 20, 40, 80, 161, 200, 200, 200]);
  });

  it('draws from the current pool only (largest-untried pick reveals the pool bounds)', () => {
    // random ≈ 1 always takes the largest untried id of the current pool.
    const strategy = new RandomGrowingIdStrategy(200, () => ALMOST_ONE);
    const first = Array.from({ length: 8 }, () => strategy.next());
    expect(first).toEqual([9, 19, 39, 79, 160, 199, 198, 197]);
  });

  it('picks the k-th smallest untried id with k = floor(random × untried)', () => {
    const values = [0.5, 0, 0.25];
    const strategy = new RandomGrowingIdStrategy(200, () => values.shift() ?? 0);
    // Draw 1: pool 0..9 (10 untried) → index 5 → 5.
    expect(strategy.next()).toBe(5);
    // Draw 2: pool 0..19 minus {5} (19 untried) → index 0 → 0.
    expect(strategy.next()).toBe(0);
    // Draw 3: pool 0..39 minus {0,5} (38 untried) → index floor(9.5) = 9 → [1,2,3,4,6,7,8,9,10,11][9] = 11.
    expect(strategy.next()).toBe(11);
  });

  it('tries every id exactly once and is exhausted after exactly `limit` draws', () => {
    for (const limit of [200, 57, 10, 7, 3, 1]) {
      const strategy = new RandomGrowingIdStrategy(limit, seeded(limit));
      const ids = drain(strategy);
      expect(ids).toHaveLength(limit);
      expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: limit }, (_, i) => i));
      expect(strategy.next()).toBeUndefined();
      expect(strategy.next()).toBeUndefined();
    }
  });

  it('caps the first pool at a limit smaller than 10', () => {
    const strategy = new RandomGrowingIdStrategy(4, () => ALMOST_ONE);
    expect(drain(strategy)).toEqual([3, 2, 1, 0]);
    expect(strategy.poolSize).toBe(4);
  });

  it('with limit 1 yields only 0', () => {
    const strategy = new RandomGrowingIdStrategy(1, seeded(7));
    expect(drain(strategy)).toEqual([0]);
  });

  it('is roughly uniform over the first pool', () => {
    const counts = Array.from({ length: 10 }, () => 0);
    const random = seeded(42);
    const passes = 20_000;
    for (let i = 0; i < passes; i++) {
      const id = new RandomGrowingIdStrategy(200, random).next();
      counts[id!]++;
    }
    // Expected 2000 per id; ±10% is > 7 standard deviations, so this is not flaky.
    for (const count of counts) {
      expect(count).toBeGreaterThan(1800);
      expect(count).toBeLessThan(2200);
    }
  });

  it('tolerates a random source returning values outside [0, 1)', () => {
    const bad = [1, -0.5, Number.NaN, 2];
    const strategy = new RandomGrowingIdStrategy(3, () => bad.shift() ?? 0);
    expect(drain(strategy).sort()).toEqual([0, 1, 2]);
  });

  it('rejects a non-positive or fractional limit', () => {
    expect(() => new RandomGrowingIdStrategy(0)).toThrow(RangeError);
    expect(() => new RandomGrowingIdStrategy(2.5)).toThrow(RangeError);
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
    expect(strategy).toBeInstanceOf(RandomGrowingIdStrategy);
    // random = 0 always takes the smallest untried id.
    expect(drain(strategy)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('rejects an unknown mode', () => {
    expect(() => createIdStrategy('nope' as 'random', 3)).toThrow(RangeError);
  });
});
