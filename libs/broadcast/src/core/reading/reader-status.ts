import type { BroadcastLogFields } from '../../interfaces/broadcast-logger.interface.js';
import type {
  BroadcastState,
  BroadcastStatus,
} from '../../interfaces/broadcast-status.interface.js';
import type { Claim, ReaderDeps } from './broadcast-reader.types.js';
import type { HandlerCalls } from '../dispatch/handler-calls.js';

/**
 * The reader's status(): its state and claim, the pool as the allocator saw it and the
 * dispatcher's counters. `problem` is the failure retrying cannot fix, if one lasts.
 */
export function readerStatus(
  state: BroadcastState,
  claim: Claim | undefined,
  deps: ReaderDeps,
  problem: string | undefined,
): BroadcastStatus {
  const { dispatcher, allocator } = deps;
  const newest = dispatcher.newestTimestamp;
  return {
    state,
    groupId: claim?.groupId,
    lockId: claim?.id,
    lockMode: deps.locks.mode,
    lastLatencyMs: newest === undefined ? undefined : Math.max(0, Date.now() - newest),
    poolExhausted: state !== 'ready' && allocator.exhausted,
    poolExhaustions: allocator.exhaustions,
    received: dispatcher.received,
    heartbeats: dispatcher.heartbeats,
    failed: dispatcher.failed,
    skipped: dispatcher.skipped,
    filtered: dispatcher.filtered,
    invalid: dispatcher.invalid,
    refused: dispatcher.refused,
    internalErrors: dispatcher.internalErrors,
    ...failureCounts(dispatcher.handlerCalls),
    passedOver: deps.positions.passedOver,
    rewinds: deps.positions.rewinds,
    ...(problem !== undefined && { problem }),
  };
}

/** The fields of a log line about what happened to a claimed group. */
export function claimFields(claim: Claim, reason: string): BroadcastLogFields {
  return { group: claim.groupId, lockId: claim.id, reason };
}

/** The failure policy's counters (see BroadcastStatus). */
function failureCounts(calls: HandlerCalls) {
  const outlets = calls.outlets;
  return {
    retries: calls.retries,
    exhausted: calls.exhausted,
    retriesShed: calls.retriesShed,
    retriesPending: calls.scheduler.pending,
    deadLettered: outlets?.deadLettered ?? 0,
    deadLetterFailures: outlets?.deadLetterFailures ?? 0,
    hookFailures: outlets?.hookFailures ?? 0,
  };
}
