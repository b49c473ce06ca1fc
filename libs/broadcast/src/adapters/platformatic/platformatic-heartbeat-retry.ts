import { chainOf } from './platformatic-errors.js';

/**
 * Heartbeat errors after which the member is out of the group and must join anew: the only ones,
 * as in Kafka's Java consumer. A static member may also get FENCED_INSTANCE_ID (another member
 * holds its instance id now): not retriable, so it ends the membership too, at once.
 */
const MEMBERSHIP_LOST = new Set(['UNKNOWN_MEMBER_ID', 'FENCED_MEMBER_EPOCH']);
/** The coordinator asked is not (or no longer) the group's: it is found again. */
const COORDINATOR_MOVED = new Set(['NOT_COORDINATOR', 'COORDINATOR_NOT_AVAILABLE']);
/** The coordinator asked is the group's, still loading it (a new one, after a move). */
const COORDINATOR_LOADING = 'COORDINATOR_LOAD_IN_PROGRESS';

/**
 * What a failed heartbeat says: `lost` (the membership ended), `moved` (find the coordinator
 * again), `loading` (the same coordinator, later), `unreachable` (no answer: a connection failed
 * or timed out; find it again), `retriable` (an answer the broker calls retriable), `refused`
 * (anything else: an ACL, a bad request).
 */
export type HeartbeatFailure =
  'lost' | 'moved' | 'loading' | 'unreachable' | 'retriable' | 'refused';

export function heartbeatFailure(error: unknown): HeartbeatFailure {
  const answers = [...chainOf(error)].filter((e) => e.apiId);
  if (answers.some((e) => MEMBERSHIP_LOST.has(e.apiId!))) return 'lost';
  if (answers.length === 0) return 'unreachable';
  if (answers.some((e) => COORDINATOR_MOVED.has(e.apiId!))) return 'moved';
  if (answers.some((e) => e.apiId === COORDINATOR_LOADING)) return 'loading';
  return answers.every((e) => e.canRetry === true) ? 'retriable' : 'refused';
}

/** Kafka's Java consumer defaults: retry.backoff.ms and retry.backoff.max.ms. */
const RETRY_BACKOFF_MS = 100;
const RETRY_BACKOFF_MAX_MS = 1_000;
/** Java's ExponentialBackoff jitter for these retries (CommonClientConfigs.RETRY_BACKOFF_JITTER). */
const JITTER = 0.2;

/**
 * The wait before the heartbeat after the `inARow`-th failure in a row, as Kafka's Java consumer
 * waits (AbstractHeartbeatRequestManager, CoordinatorRequestManager, RequestState): 100 ms,
 * doubling, ±20 %, at most 1 s; a coordinator that moved (NOT_COORDINATOR,
 * COORDINATOR_NOT_AVAILABLE) is found again and asked at once. Java asks at once after every such
 * answer; here only after the first in a row, then with the backoff, so that a lookup naming a
 * broker that does not know yet that it is the coordinator (seen in a rolling restart: the new
 * coordinator answered NOT_COORDINATOR, then COORDINATOR_LOAD_IN_PROGRESS) is not asked in a
 * tight loop. Why: the backoff was 100 ms doubling up to 2 s with full jitter, so a coordinator
 * that finished loading waited up to 2 s for the next heartbeat, records being held meanwhile.
 */
export function heartbeatRetryDelay(failure: HeartbeatFailure, inARow: number): number {
  if (failure === 'moved' && inARow === 1) return 0;
  const term = RETRY_BACKOFF_MS * 2 ** Math.min(inARow - 1, 16);
  const jittered = term * (1 - JITTER + Math.random() * 2 * JITTER);
  return Math.round(Math.min(RETRY_BACKOFF_MAX_MS, jittered));
}
