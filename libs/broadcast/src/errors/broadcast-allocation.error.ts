import { BroadcastMessages } from './broadcast.messages.js';

/** Why one candidate group was refused. */
export interface GroupAttempt {
  groupId: string;
  reason: string;
}

/** Thrown when no broadcast group could be claimed before the startup deadline. */
export class BroadcastAllocationError extends Error {
  override readonly name = 'BroadcastAllocationError';

  constructor(
    readonly attempts: readonly GroupAttempt[],
    elapsedMs: number,
    /** Set when the last pass found every id of the pool refused: the pool size, maxGroups. */
    readonly exhaustedMaxGroups?: number,
  ) {
    const failed = BroadcastMessages.allocationFailed(
      elapsedMs,
      attempts.map((a) => `${a.groupId} (${a.reason})`),
    );
    super(
      exhaustedMaxGroups === undefined
        ? failed
        : `${BroadcastMessages.poolExhausted(exhaustedMaxGroups)} ${failed}`,
    );
  }
}
