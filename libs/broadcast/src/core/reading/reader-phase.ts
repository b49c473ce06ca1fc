import type { LockMode } from '../../interfaces/advisory-lock.interface.js';
import type { BroadcastLogFields } from '../../interfaces/broadcast-logger.interface.js';
import type { BroadcastState } from '../../interfaces/broadcast-status.interface.js';
import type { Claim, ReaderPhase, WaitingFor } from './broadcast-reader.types.js';

/**
 * What the reader shows of itself (BroadcastReader.status()); the engine adds the dispatcher's
 * counters and the allocator's pool to it (BroadcastEngine.status()).
 */
export interface ReaderStatus {
  /** The public state, derived from the phase (see publicState). */
  state: BroadcastState;
  /** The phase itself, for logs and tests. */
  phase: ReaderPhase['name'];
  groupId: string | undefined;
  lockId: number | undefined;
  lockMode: LockMode;
  /** What the reader waits for while it is not ready (BroadcastStatus.waitingFor). */
  waitingFor: WaitingFor | undefined;
  /** A failure retrying cannot fix (ReaderProblem), while it lasts. */
  problem: string | undefined;
}

/** The reader's status in `phase`; `problem`: the failure retrying cannot fix, if one lasts. */
export function readerStatus(
  phase: ReaderPhase,
  everReady: boolean,
  lockMode: LockMode,
  poolExhausted: boolean,
  problem: { current(): string | undefined },
): ReaderStatus {
  const state = publicState(phase, everReady);
  const claim = claimOf(phase);
  return {
    state,
    phase: phase.name,
    groupId: claim?.groupId,
    lockId: claim?.id,
    lockMode,
    waitingFor: state === 'ready' ? undefined : waitingFor(phase, poolExhausted),
    problem: problem.current(),
  };
}

/** The claim a phase holds: the group read, rejoined, given up or left at stop. */
export function claimOf(phase: ReaderPhase): Claim | undefined {
  return 'claim' in phase ? phase.claim : undefined;
}

/**
 * The public state (BroadcastState, unchanged since 0.1): `starting` until the first ready,
 * `recovering` whenever not ready after that, and during a stop the state it began in.
 */
export function publicState(phase: ReaderPhase, everReady: boolean): BroadcastState {
  switch (phase.name) {
    case 'ready':
      return 'ready';
    case 'stopped':
      return 'stopped';
    case 'stopping':
      return phase.state;
    case 'rejoining':
    case 'moving':
      return 'recovering';
    default:
      return everReady ? 'recovering' : 'starting';
  }
}

/**
 * What a phase that is not ready waits for: `pool` while the allocator finds every id taken,
 * `kafka` while the broker's answers are what is missing (the topic check, the snapshot, the
 * deletes of free groups; the pause after a rejoin attempt failed), `group` while a group is
 * joined and verified (an earlier member of ours waited out included) or given up.
 */
export function waitingFor(phase: ReaderPhase, poolExhausted: boolean): WaitingFor | undefined {
  switch (phase.name) {
    case 'allocating':
      return poolExhausted ? 'pool' : 'kafka';
    case 'joining':
    case 'moving':
      return 'group';
    case 'rejoining':
      return phase.joining ? 'group' : 'kafka';
    default:
      return undefined;
  }
}

/** The fields of a log line about what happened to a claimed group. */
export function claimFields(claim: Claim, reason: string): BroadcastLogFields {
  return { group: claim.groupId, lockId: claim.id, reason };
}
