import type { BroadcastLogFields } from '../../interfaces/broadcast-logger.interface.js';
import type {
  BroadcastState,
  BroadcastStatus,
} from '../../interfaces/broadcast-status.interface.js';
import type { Claim, ReaderDeps } from './broadcast-reader.types.js';

/**
 * The reader's status(): its state and claim, the pool as the allocator saw it and one
 * snapshot of the dispatcher's counters. `problem` is the failure retrying cannot fix, if one lasts.
 */
export function readerStatus(
  state: BroadcastState,
  claim: Claim | undefined,
  deps: ReaderDeps,
  problem: string | undefined,
): BroadcastStatus {
  const { allocator } = deps;
  const c = deps.dispatcher.counters();
  const newest = c.newestTimestamp;
  return {
    state,
    groupId: claim?.groupId,
    lockId: claim?.id,
    lockMode: deps.locks.mode,
    lastLatencyMs: newest === undefined ? undefined : Math.max(0, Date.now() - newest),
    poolExhausted: state !== 'ready' && allocator.exhausted,
    poolExhaustions: allocator.exhaustions,
    received: c.received,
    heartbeats: c.heartbeats,
    failed: c.failed,
    skipped: c.skipped,
    filtered: c.filtered,
    invalid: c.invalid,
    refused: c.refused,
    internalErrors: c.internalErrors,
    retries: c.retries,
    exhausted: c.exhausted,
    retriesShed: c.retriesShed,
    retriesPending: c.retriesPending,
    deadLettered: c.deadLettered,
    deadLetterFailures: c.deadLetterFailures,
    hookFailures: c.hookFailures,
    passedOver: c.passedOver,
    rewinds: c.rewinds,
    ...(problem !== undefined && { problem }),
  };
}

/** The fields of a log line about what happened to a claimed group. */
export function claimFields(claim: Claim, reason: string): BroadcastLogFields {
  return { group: claim.groupId, lockId: claim.id, reason };
}
