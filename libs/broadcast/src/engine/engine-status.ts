import type { BroadcastGroupAllocator } from '../core/allocation/broadcast-group.allocator.js';
import type { DispatchCounters } from '../core/dispatch/dispatch-counters.js';
import type { ReaderStatus } from '../core/reading/broadcast.reader.js';
import type { BroadcastStatus } from '../interfaces/broadcast-status.interface.js';

/**
 * BroadcastStatus, assembled from the parts that own each field: the reader's state and claim
 * (and what it waits for), the pool as the allocator last saw it, one snapshot of the
 * dispatcher's counters, and how long the heartbeat's sends have gone unanswered.
 */
export function engineStatus(
  reader: ReaderStatus,
  allocator: Pick<BroadcastGroupAllocator, 'exhausted' | 'exhaustions'>,
  counters: DispatchCounters,
  /** How long this instance's heartbeats have gone unacknowledged (BroadcastHeartbeat). */
  kafkaUnansweredMs?: number,
): BroadcastStatus {
  const { state, groupId, lockId, lockMode, waitingFor, problem } = reader;
  const {
    newestTimestamp,
    lastHeartbeatAt: _at,
    lastHeartbeatTimestamp: _timestamp,
    ...counted
  } = counters;
  return {
    state,
    groupId,
    lockId,
    lockMode,
    lastLatencyMs:
      newestTimestamp === undefined ? undefined : Math.max(0, Date.now() - newestTimestamp),
    poolExhausted: state !== 'ready' && allocator.exhausted,
    poolExhaustions: allocator.exhaustions,
    ...counted,
    ...(waitingFor !== undefined && { waitingFor }),
    ...(problem !== undefined && { problem }),
    ...(kafkaUnansweredMs !== undefined && { kafkaUnansweredMs }),
  };
}
