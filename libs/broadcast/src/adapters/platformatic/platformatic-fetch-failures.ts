import { backoffDelay, pause } from '../../shared/async.utils.js';
import { leaderMoved, unreachable } from './platformatic-fetch-leaders.js';

/**
 * Failed fetches in a row before the consumer crashes (each already retried by the client),
 * counting only those a broker refused: unreachable brokers and moved leaders never count.
 */
const MAX_FAILED_ROUNDS = 5;

/**
 * The fetcher's failures in a row, counted per leader node (a fetch per leader is in flight at
 * once, so one leader's refusals must not be reset by another's answers), and under ROUND for
 * what a round does before its fetches (metadata, positions, hand-over).
 */
export class PlatformaticFetchFailures {
  /** The key of a round's own steps. */
  static readonly ROUND = -1;
  /** Refused failures in a row, per key: the crash. */
  private readonly refused = new Map<number, number>();
  /** Failures in a row, refused or not, per key: the backoff. */
  private readonly inARow = new Map<number, number>();

  constructor(
    /** Drops the client's metadata, so that the next round asks again. */
    private readonly clearMetadata: () => void,
    /** Ends a backoff at once (stop). */
    private readonly stopping: AbortSignal,
  ) {}

  /**
   * After a failure of `key`: rethrows it once a broker refused MAX_FAILED_ROUNDS in a row; else
   * the metadata is refreshed before the next round. A moved leader is fetched from again at once
   * (the first time in a row): the refreshed metadata names the new one. An unreachable broker (an
   * outage, a restart) is retried with backoff for as long as it lasts, as Kafka's consumers do:
   * whether the member still holds its partitions is the membership's call (the KIP-848 heartbeat
   * holds records meanwhile; the classic client's heartbeats expire it), and a crash here made the
   * engine join with a new member that then waited out the old one's session.
   */
  async failed(error: unknown, key: number): Promise<void> {
    const moved = leaderMoved(error);
    if (!moved && !unreachable(error) && bump(this.refused, key) >= MAX_FAILED_ROUNDS) throw error;
    this.clearMetadata();
    const inARow = bump(this.inARow, key);
    if (moved && inARow === 1) return;
    await pause(backoffDelay(inARow, 100, 2_000), this.stopping);
  }

  succeeded(key: number): void {
    this.refused.delete(key);
    this.inARow.delete(key);
  }

  /** Nodes that lead nothing of ours now, with nothing in flight, start afresh if they do again. */
  forgetAllBut(busy: (node: number) => boolean): void {
    for (const counts of [this.refused, this.inARow])
      for (const node of counts.keys())
        if (node !== PlatformaticFetchFailures.ROUND && !busy(node)) counts.delete(node);
  }
}

/** Adds one to `key`'s count in `counts`; returns the new count. */
function bump(counts: Map<number, number>, key: number): number {
  const count = (counts.get(key) ?? 0) + 1;
  counts.set(key, count);
  return count;
}
