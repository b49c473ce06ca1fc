import type { BaseOptions, RetryDelayGetter } from '@platformatic/kafka';
import { chainOf } from './platformatic-errors.js';

/**
 * Fetch errors that say a partition's leader moved: the broker asked is no longer (or not yet)
 * its leader. The client refreshes its metadata on the first three before it retries
 * (clients/consumer/consumer.js:641-654 in 2.12.1); our fetcher does on all of them.
 */
const LEADER_MOVED = new Set([
  'NOT_LEADER_OR_FOLLOWER',
  'LEADER_NOT_AVAILABLE',
  'FENCED_LEADER_EPOCH',
  'UNKNOWN_LEADER_EPOCH',
]);
/**
 * Fetch errors that say the broker no longer knows the client's incremental fetch session
 * (KIP-227): it restarted, or evicted the session. The client forgets the session and retries
 * with a full fetch (consumer.js:630-633 in 2.12.1), which needs no wait: Kafka's Java consumer
 * sends it with the next poll.
 */
const SESSION_LOST = new Set([
  'FETCH_SESSION_ID_NOT_FOUND',
  'INVALID_FETCH_SESSION_EPOCH',
  'FETCH_SESSION_TOPIC_ID_ERROR',
]);
/** The old leader's socket: closed or refusing while its broker stops. */
const LEADER_GONE = /ECONNREFUSED|ECONNRESET|Connection closed|closed connection/i;
/** The client's own retry delay when none is set (clients/base/options.js). */
const CLIENT_RETRY_DELAY_MS = 1_000;

/** True when `error` says the leader moved, or the old leader's connection is refused or closed. */
export function leaderMoved(error: unknown): boolean {
  return [...chainOf(error)].some(
    (e) =>
      (e.apiId !== undefined && LEADER_MOVED.has(e.apiId)) ||
      LEADER_GONE.test(`${e.code ?? ''} ${e.message ?? ''}`),
  );
}

/** True when `error` says the broker forgot the client's fetch session. */
export function fetchSessionLost(error: unknown): boolean {
  return [...chainOf(error)].some((e) => e.apiId !== undefined && SESSION_LOST.has(e.apiId));
}

/** True when no broker answered with an error: only connections failed (an outage, a restart). */
export function unreachable(error: unknown): boolean {
  const chain = [...chainOf(error)];
  return chain.length > 0 && chain.every((e) => e.apiId === undefined);
}

/**
 * The backoff of a fetch whose leader moved, from its second retry on: Kafka's Java consumer
 * defaults (retry.backoff.ms 100, doubling up to retry.backoff.max.ms 1 s).
 */
const MOVED_BACKOFF_MS = 100;
const MOVED_BACKOFF_MAX_MS = 1_000;

/**
 * The consumer client's retry delay: a fetch whose leader moved, or whose fetch session the broker
 * forgot, is retried at once (its first retry), its later retries after 100 ms, 200 ms, ... (at
 * most 1 s); other operations wait as `base` says. Why: in a rolling restart the fetches kept
 * going to the old leader, then the client waited its fixed 1 s retry delay before the request
 * that found the new one, and handlers got nothing for ~3 s longer than the publisher was
 * stalled. The client has refreshed its metadata before each retry (of the topics it tracks), so
 * a retry goes to the leader it names then; one that still named the old leader waited a whole
 * second for the next look. A leader that moves to a node restarted earlier in the roll answers
 * the client's first fetch there with FETCH_SESSION_ID_NOT_FOUND (its sessions died with it): one
 * more second, on every such move. `onceAtOnce` counts the retries at once.
 */
export function fetchRetryDelay(
  base: BaseOptions['retryDelay'],
  onceAtOnce: () => void = () => undefined,
): RetryDelayGetter {
  return (client, operationId, attempt, retries, error) => {
    if (operationId === 'fetch' && (leaderMoved(error) || fetchSessionLost(error))) {
      if (attempt > 1) return Math.min(MOVED_BACKOFF_MS * 2 ** (attempt - 2), MOVED_BACKOFF_MAX_MS);
      onceAtOnce();
      return 0;
    }
    if (typeof base === 'function') return base(client, operationId, attempt, retries, error);
    return base ?? CLIENT_RETRY_DELAY_MS;
  };
}
