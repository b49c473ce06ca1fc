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
  ) {
    super(
      BroadcastMessages.allocationFailed(
        elapsedMs,
        attempts.map((a) => `${a.groupId} (${a.reason})`),
      ),
    );
  }
}
