/** Yields the candidate group ids for ONE allocation pass. */
export interface IdStrategy {
  /** The next id to try, or `undefined` once every id up to the limit has been tried. */
  next(): number | undefined;
}

/** Order in which candidate ids are tried: ascending (lock mode) or random in a growing pool (lock-free mode). */
export type IdStrategyMode = 'lowest-first' | 'random';

/** A source of uniform numbers in [0, 1), like `Math.random`. */
export type RandomSource = () => number;

/** Default number of group ids in the pool: ids 0..199. */
export const DEFAULT_ID_LIMIT = 200;

const INITIAL_POOL_SIZE = 10;
const MIN_GROWTH = 3;
const GROWTH_FACTOR = 1.02;

function assertLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError(`id limit must be a positive integer, got ${limit}`);
  }
}

/** Maps a random number onto an index in [0, count), tolerating sources that misbehave at the edges. */
function pickIndex(random: RandomSource, count: number): number {
  const r = random();
  if (!Number.isFinite(r) || r <= 0) return 0;
  return Math.min(count - 1, Math.floor(r * count));
}

/**
 * Lock-free mode: draws uniformly among the untried ids of a pool that grows on every draw.
 *
 * The first draw's pool is ids 0..9; each later draw first grows the pool by
 * `max(3, floor(size × 1.02))` ids, capped at `limit` (10 → 20 → 40 → 80 → 161 → 200).
 * Each draw takes the k-th smallest untried id, with k = floor(random() × untried count).
 */
export class RandomGrowingIdStrategy implements IdStrategy {
  // Kept sorted so the k-th pick is well defined (and testable); the pool is small, so splicing is cheap.
  readonly #untried: number[] = [];
  #poolSize = 0;

  constructor(
    private readonly limit: number = DEFAULT_ID_LIMIT,
    private readonly random: RandomSource = Math.random,
  ) {
    assertLimit(limit);
  }

  /** Number of ids (0..poolSize-1) drawn from so far. */
  get poolSize(): number {
    return this.#poolSize;
  }

  next(): number | undefined {
    this.#grow();
    if (this.#untried.length === 0) return undefined;
    const index = pickIndex(this.random, this.#untried.length);
    return this.#untried.splice(index, 1)[0];
  }

  #grow(): void {
    const current = this.#poolSize;
    const target =
      current === 0
        ? INITIAL_POOL_SIZE
        : current + Math.max(MIN_GROWTH, Math.floor(current * GROWTH_FACTOR));
    const size = Math.min(this.limit, target);
    for (let id = current; id < size; id++) this.#untried.push(id);
    this.#poolSize = Math.max(current, size);
  }
}

/** Lock mode: tries 0, 1, 2, … limit-1 in ascending order, so live instances pack into the lowest groups. */
export class LowestFirstIdStrategy implements IdStrategy {
  #nextId = 0;

  constructor(private readonly limit: number = DEFAULT_ID_LIMIT) {
    assertLimit(limit);
  }

  next(): number | undefined {
    if (this.#nextId >= this.limit) return undefined;
    return this.#nextId++;
  }
}

/** Creates a fresh strategy for one allocation pass. `random` is only used by the `'random'` mode. */
export function createIdStrategy(
  mode: IdStrategyMode,
  limit: number,
  random?: RandomSource,
): IdStrategy {
  switch (mode) {
    case 'lowest-first':
      return new LowestFirstIdStrategy(limit);
    case 'random':
      return new RandomGrowingIdStrategy(limit, random);
    default:
      throw new RangeError(`unknown id strategy mode: ${String(mode)}`);
  }
}
