/** Yields the candidate group ids for ONE allocation pass. */
export interface IdStrategy {
  /** The next id to try, or `undefined` once every id up to the limit has been tried. */
  next(): number | undefined;
}

/** Order in which candidate ids are tried: ascending (lock mode) or spread at random over the pool (lock-free mode). */
export type IdStrategyMode = 'lowest-first' | 'random';

/** A source of uniform numbers in [0, 1), like `Math.random`. */
export type RandomSource = () => number;

/** Default number of group ids in the pool: ids 0..199. */
export const DEFAULT_ID_LIMIT = 200;

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
 * Lock-free mode: every id of the pool once, drawn uniformly at random, the ids that the latest
 * listing of the pool saw without members before those it saw with members.
 *
 * Instances that start together (a rolling deploy, a fleet on one signal) draw over the whole pool,
 * not over its lowest ids, so two of them rarely pick the same group: each such collision costs a
 * join (and on a classic broker the 3 s initial rebalance delay). The listing is only a hint, taken
 * before the instances that start with us joined: an id it saw taken is still tried (last, and
 * its delete is refused at once while it has a member), and every claim is still proven by the
 * join and the member-id check. Each draw takes the k-th smallest untried id of its group, with
 * k = floor(random() × its size).
 */
export class SpreadIdStrategy implements IdStrategy {
  // Kept sorted so the k-th pick is well defined (and testable); the pool is small, so splicing is cheap.
  #free: number[];
  #busy: number[] = [];
  /** Whether a listing was taken at all: before one, no id is known to be free. */
  #listed = false;

  constructor(
    private readonly limit: number = DEFAULT_ID_LIMIT,
    private readonly random: RandomSource = Math.random,
  ) {
    assertLimit(limit);
    this.#free = Array.from({ length: limit }, (_, id) => id);
  }

  /** Untried ids that the latest listing saw without members. */
  get freeLeft(): number {
    return this.#free.length;
  }

  /** A new listing: of the untried ids, those in `occupied` are tried after all the others. */
  hint(occupied: ReadonlySet<number>): void {
    this.#listed = true;
    const untried = [...this.#free, ...this.#busy].sort((a, b) => a - b);
    this.#free = untried.filter((id) => !occupied.has(id));
    this.#busy = untried.filter((id) => occupied.has(id));
  }

  next(): number | undefined {
    return this.draw()?.id;
  }

  /** The next id, and whether a listing saw its group without members (`listedFree`). */
  draw(): { id: number; listedFree: boolean } | undefined {
    const listedFree = this.#listed && this.#free.length > 0;
    const from = this.#free.length > 0 ? this.#free : this.#busy;
    if (from.length === 0) return undefined;
    return { id: from.splice(pickIndex(this.random, from.length), 1)[0]!, listedFree };
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
      return new SpreadIdStrategy(limit, random);
    default:
      throw new RangeError(`unknown id strategy mode: ${String(mode)}`);
  }
}
