import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';

/** What a contest needs from the membership it belongs to. */
export interface ContestHost {
  readonly groupId: string;
  readonly logger: BroadcastLogger;
  /** How long a member that already held the group exclusively waits for a newcomer to leave. */
  readonly graceMs: number;
  /** The group's members that are not ours, as the broker lists them now; undefined: unknown. */
  foreignNow(): Promise<string[] | undefined>;
  /** The membership is still in `generation` and not stopped: a verdict of it still counts. */
  current(generation: number): boolean;
  /** The other members stayed: this instance gives the group up. */
  yieldTo(memberIds: string[]): void;
  /** The other members left within the grace: the generation is verified again. */
  alone(generation: number): void;
}

/**
 * Two instances in one broadcast group: who keeps it. A newcomer that deleted the group just
 * before we joined it sees an established member and leaves by itself (it never held the group
 * alone): the established member waits for that instead of both leaving. Newcomers that joined
 * the same empty group together (lock-free mass starts; on brokers with an initial rebalance
 * delay, everyone who joins within it): the generation's leader keeps the group and the others
 * leave at once, so each collision still places one instance instead of none. The leader waits
 * half as long as an established member would, so that if the other member is one (it rejoined
 * late and lost the leadership) the newcomer is the one that gives up.
 *
 * When the grace ends the group is described again before anything is concluded: the other
 * member may have left without this member seeing a new generation (a KIP-848 member epoch can
 * move while its partitions stay the same), and a member alone in its group must keep it.
 */
export class GroupContest {
  private timer: NodeJS.Timeout | undefined;
  /** The other members of an open contest: until this member left or was verified alone. */
  private open: string[] | undefined;

  constructor(private readonly host: ContestHost) {}

  /** A verification of `generation` saw `foreign` members. */
  collided(
    foreign: string[],
    generation: number,
    standing: { established: boolean; leader: boolean },
  ): void {
    const { groupId, logger, graceMs } = this.host;
    const members = foreign.join(',');
    if (standing.established) {
      logger.warn(
        `Member(s) ${foreign.join(', ')} of another instance joined ${groupId}; waiting for them to leave`,
        { group: groupId, reason: 'foreign member', members },
      );
      return this.start(foreign, generation, graceMs);
    }
    if (!standing.leader) return this.host.yieldTo(foreign);
    logger.debug?.(
      `Joined ${groupId} together with member(s) ${foreign.join(', ')}; as the leader, waiting for them to leave`,
      { group: groupId, reason: 'joined together', members },
    );
    this.start(foreign, generation, graceMs / 2);
  }

  /** A new generation or a stop: a contest belongs to the generation that saw the other member. */
  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The group was verified this member's alone: an open contest ends with it keeping the group. */
  won(): void {
    this.cancel();
    const { groupId, logger } = this.host;
    if (this.open)
      logger.log(`Member(s) ${this.open.join(', ')} left ${groupId}; keeping it`, {
        group: groupId,
        reason: 'foreign member left',
        members: this.open.join(','),
      });
    this.open = undefined;
  }

  private start(foreign: string[], generation: number, graceMs: number): void {
    if (this.timer) return;
    this.open = foreign;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.decide(foreign, generation);
    }, graceMs);
  }

  private async decide(seen: string[], generation: number): Promise<void> {
    if (!this.host.current(generation)) return;
    const now = await this.host.foreignNow();
    if (!this.host.current(generation)) return;
    // A describe that failed proves nothing: the members seen at the start count.
    const staying = now ?? seen;
    if (staying.length === 0) return this.host.alone(generation);
    this.open = undefined;
    this.host.yieldTo(staying);
  }
}
