import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import type { KafkaAdminPort } from '../../interfaces/kafka-port.interface.js';
import { errorMessage, pause } from '../../shared/async.utils.js';
import { type RandomSource, SpreadIdStrategy } from './id-strategy.js';

/** Longest a listing may delay a start: past this the walk goes on without it. */
const LISTING_TIMEOUT_MS = 3_000;

/**
 * The ids of the pool `<groupPrefix><n>` whose groups had members at one listing (one ListGroups,
 * plus the describes the client needs), or undefined when the client cannot list them or the
 * listing failed, took longer than 3 s or `signal` aborted. A hint for the lock-free walk only: it is stale as soon as it is read, and
 * exclusivity is proven by the join and the member-id check, never by it.
 */
export async function occupiedPoolIds(
  admin: KafkaAdminPort,
  groupPrefix: string,
  logger: BroadcastLogger,
  signal: AbortSignal,
): Promise<Set<number> | undefined> {
  if (signal.aborted) return undefined;
  const settled = new AbortController();
  try {
    const listing = admin.occupiedGroups(groupPrefix);
    // A late answer is dropped: it must not become an unhandled rejection.
    listing.catch(() => undefined);
    const waited = pause(LISTING_TIMEOUT_MS, AbortSignal.any([signal, settled.signal]));
    const groups = await Promise.race([listing, waited.then(() => undefined)]);
    if (!groups) return undefined;
    const ids = new Set<number>();
    for (const groupId of groups) {
      const suffix = groupId.slice(groupPrefix.length);
      if (groupId.startsWith(groupPrefix) && /^\d+$/.test(suffix)) ids.add(Number(suffix));
    }
    return ids;
  } catch (error) {
    logger.debug?.(`Listing the pool ${groupPrefix}* failed: ${errorMessage(error)}`, {
      reason: errorMessage(error),
    });
    return undefined;
  } finally {
    settled.abort();
  }
}

/** One id of the lock-free walk; `listedFree`: the listing just taken saw its group without members. */
export interface SpreadId {
  id: number;
  listedFree: boolean;
}

/**
 * The lock-free walk of one pass: every id once, spread at random over the pool, the ids the
 * latest listing saw without members first. The pool is listed again before each draw while such
 * ids remain, so an instance that lost a collision (a refused join) chooses among the groups that
 * are still free now, not among those that were free when it started.
 */
export async function* spreadIds(
  limit: number,
  list: () => Promise<Set<number> | undefined>,
  random?: RandomSource,
): AsyncGenerator<SpreadId> {
  const strategy = new SpreadIdStrategy(limit, random);
  for (;;) {
    let listed = false;
    if (strategy.freeLeft > 0) {
      const occupied = await list();
      if (occupied) strategy.hint(occupied);
      listed = occupied !== undefined;
    }
    const drawn = strategy.draw();
    if (drawn === undefined) return;
    // Free by a listing of an earlier draw only (this one failed): not known to be free now.
    yield { id: drawn.id, listedFree: listed && drawn.listedFree };
  }
}
