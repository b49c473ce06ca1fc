import { deferred } from '../../shared/async.utils.js';
import type { MembershipPhase, Round } from './membership.types.js';

/** The generation of a phase that has one and still reads (not leaving, not stopped). */
export function liveRound(phase: MembershipPhase): Round | undefined {
  return 'round' in phase ? phase.round : undefined;
}

/**
 * The round of a new generation. What the membership proved carries over only while its member
 * id stays the same: it stays adopted (a member once handed over keeps reading through later
 * rebalances: the group is its own, and positions are the engine's) and established. A new member
 * id (the old one expired or was removed, and the client rejoined by itself, as kafkajs does after
 * UNKNOWN_MEMBER_ID) is a newcomer again: an instance that proved itself alone may hold the group
 * now, so nothing reaches the handlers until this member is verified and handed over anew.
 */
export function nextRound(previous: Round | undefined, memberId: string, leader: boolean): Round {
  const sameMember = previous === undefined || previous.memberId === memberId;
  return {
    generation: (previous?.generation ?? 0) + 1,
    memberId,
    leader,
    established: sameMember && (previous?.established ?? false),
    adopted: sameMember && (previous?.adopted ?? false),
    proof: deferred<boolean>(),
    contested: previous?.contested,
  };
}

/** A phase ends: its contest's timer stops, and its proof settles false unless handed over. */
export function endRound(phase: MembershipPhase): void {
  if (phase.name === 'contesting') clearTimeout(phase.timer);
  liveRound(phase)?.proof.resolve(false);
}
