import type {
  GroupConsumerListener,
  GroupConsumerPort,
  RecordSink,
} from '../../interfaces/kafka-port.interface.js';
import {
  HOLD_MS,
  type MembershipContext,
  type MembershipVerdict,
  VERIFY_ATTEMPTS,
} from './group-membership.types.js';
import { GroupContest } from './group-contest.js';
import {
  asError,
  backoffDelay,
  type Deferred,
  deferred,
  errorMessage,
  pause,
} from '../../shared/async.utils.js';

export type { MembershipContext, MembershipVerdict, StepProbe } from './group-membership.types.js';

/**
 * One consumer in one broadcast group. After every (re)join it checks with describeGroups
 * that the only member is this one, by member id: counting members is not enough, since
 * a prober could see only someone else's member.
 */
export class GroupMembership implements GroupConsumerListener {
  memberId: string | undefined;
  private readonly consumer: GroupConsumerPort;
  private generation = 0;
  private stopped = false;
  private readonly abort = new AbortController();
  /** Verified as the only member in some generation: the group is ours, newcomers must yield. */
  private established = false;
  /** This generation's leader, as the coordinator chose it (the same answer for every member). */
  private leader = false;
  private readonly contest: GroupContest;
  /**
   * Set by the reader once it adopted this membership as ready (handOver): from then on records
   * go to the handlers, in this generation and the later ones.
   */
  private handingOver = false;
  /** Settles true at handOver(), false when this generation ends before that. */
  private proof: Deferred<boolean> = settled(false);
  private observer: (verdict: MembershipVerdict) => void = () => {};

  /**
   * @param ownMemberIds members of this instance from earlier memberships of the same
   *   group, which may linger after a crash; they are ours, so not a reason to give up.
   */
  constructor(
    readonly groupId: string,
    private readonly ctx: MembershipContext,
    private readonly ownMemberIds: Set<string>,
  ) {
    this.contest = new GroupContest({
      groupId,
      logger: ctx.logger,
      graceMs: ctx.contestGraceMs,
      foreignNow: async () => (await this.describeMembers())?.filter((id) => !this.ours(id)),
      current: (generation) => !this.stopped && generation === this.generation,
      yieldTo: (memberIds) => this.observer({ kind: 'foreign', memberIds }),
      alone: (generation) => void this.verify(generation),
    });
    this.consumer = ctx.kafka.createGroupConsumer({
      groupId,
      topics: ctx.topics,
      // Every assigned partition is sought at every join, and a position that fell out of the
      // log's range is decided by the engine (outOfRange), so nothing relies on this; should a
      // client ever fetch a partition nobody sought, the sink's guard still refuses old records.
      fromBeginning: true,
      sink: this.sink,
      listener: this,
      progress: ctx.progress,
      outOfRange: ctx.outOfRange,
    });
  }

  /** Every verdict after every join is reported here. */
  observe(observer: (verdict: MembershipVerdict) => void): void {
    this.observer = observer;
  }

  /** Starts and resolves with the first verdict, or `failed` after `timeoutMs`. */
  async join(timeoutMs: number, signal: AbortSignal): Promise<MembershipVerdict> {
    const verdict = new Promise<MembershipVerdict>((resolve) => this.observe(resolve));
    this.consumer.start().catch((error: unknown) => this.crashed(asError(error)));
    const timedOut = pause(timeoutMs, signal).then((): MembershipVerdict => ({
      kind: 'failed',
      error: new Error(`no verdict within ${timeoutMs} ms`),
    }));
    return Promise.race([verdict, timedOut]);
  }

  stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    this.contest.cancel();
    this.proof.resolve(false);
    this.observer = () => {};
    return this.consumer.stop();
  }

  /**
   * The reader took this membership over as ready: records fetched from now on, and those held
   * until now, go to the handlers. Called once the verdict `ready` was adopted (not at the
   * verification itself), so that no handler runs while the reader still reports another state.
   */
  handOver(): void {
    if (this.stopped) return;
    this.handingOver = true;
    this.proof.resolve(true);
  }

  /**
   * Nothing reaches the handlers before this membership proved that it is alone in the group:
   * the client fetches as soon as it joined (seeks apply at once), so a record that arrives
   * before the verification is held until it ends. If the group is refused, or a new generation
   * or HOLD_MS comes first, the record is dropped without moving any position (and, while the
   * membership lives, its partition is sought back there), so the group that is finally held
   * hands it over once. A member once proven alone keeps reading through later rebalances: the
   * group is its own, and positions are the engine's, whoever else briefly shares it. A
   * rejoined member waits, like any other, until its own expiring predecessor is gone.
   */
  private readonly sink: RecordSink = (topic, partition, record) => {
    if (this.handingOver && !this.stopped) return this.ctx.sink(topic, partition, record);
    if (this.stopped) return;
    const proof = this.proof.promise;
    let timer: NodeJS.Timeout | undefined;
    const held = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, HOLD_MS, false)));
    return Promise.race([proof, held]).then((proven) => {
      clearTimeout(timer);
      if (proven && this.handingOver && !this.stopped)
        return this.ctx.sink(topic, partition, record);
      if (!this.stopped)
        this.consumer.seek(topic, partition, this.ctx.positionOf(topic, partition));
    });
  };

  joined(
    memberId: string,
    assignment: ReadonlyMap<string, readonly number[]>,
    leader: boolean,
  ): void {
    this.ownMemberIds.add(memberId);
    if (this.stopped) return;
    this.ctx.probe?.('joined');
    const generation = ++this.generation;
    // A new member id: the old one expired or was removed, and an instance that proved itself
    // alone may hold the group now. This member is a newcomer again (see GroupContest).
    if (this.memberId !== undefined && memberId !== this.memberId) this.established = false;
    this.memberId = memberId;
    this.leader = leader;
    // A contest belongs to the generation that saw the other member: this one is judged anew.
    this.contest.cancel();
    this.proof.resolve(false);
    this.proof = deferred<boolean>();
    this.seekAll(assignment);
    void this.verify(generation);
  }

  /** Known before the broker answers: a member that join leaves behind is ours, not foreign. */
  joining(memberId: string): void {
    this.ownMemberIds.add(memberId);
  }

  crashed(error: Error): void {
    if (!this.stopped) this.observer({ kind: 'failed', error });
  }

  /**
   * Every assigned partition, at every join (first join, rebalance, rejoin after a crash), is
   * read from the engine's own position: whatever a member that briefly shared the group
   * committed, or whether anything was committed at all, never matters.
   */
  private seekAll(assignment: ReadonlyMap<string, readonly number[]>): void {
    for (const [topic, partitions] of assignment) {
      for (const partition of partitions) {
        this.consumer.seek(topic, partition, this.ctx.positionOf(topic, partition));
      }
    }
  }

  private async verify(generation: number): Promise<void> {
    for (let attempt = 0; attempt < VERIFY_ATTEMPTS; attempt++) {
      if (attempt > 0) await pause(backoffDelay(attempt, 50, 1_000), this.abort.signal);
      if (this.stopped || generation !== this.generation) return;
      this.ctx.probe?.('verify');
      const members = await this.describeMembers();
      if (this.stopped || generation !== this.generation || !members) continue;
      const foreign = members.filter((id) => !this.ours(id));
      if (foreign.length > 0)
        return this.contest.collided(foreign, generation, {
          established: this.established,
          leader: this.leader,
        });
      // A describe that does not list us yet saw the group before our join completed.
      if (!members.includes(this.memberId!)) continue;
      if (members.length > 1) {
        this.ctx.logger.log(
          `Waiting for an earlier member of ${this.groupId} to expire before reading`,
        );
        return;
      }
      this.established = true;
      this.contest.won();
      // Positions were sought at the join, before any fetch: exclusivity was all that was missing.
      return this.observer({ kind: 'ready' });
    }
    if (!this.stopped && generation === this.generation) {
      this.observer({
        kind: 'failed',
        error: new Error(`could not confirm exclusive use of ${this.groupId}`),
      });
    }
  }

  private ours(memberId: string): boolean {
    return memberId === this.memberId || this.ownMemberIds.has(memberId);
  }

  private async describeMembers(): Promise<string[] | undefined> {
    try {
      return (await this.ctx.kafka.admin.describeGroup(this.groupId)).memberIds;
    } catch (error) {
      this.ctx.logger.warn(`describeGroups(${this.groupId}) failed: ${errorMessage(error)}`, {
        group: this.groupId,
        reason: errorMessage(error),
      });
      return undefined;
    }
  }
}

function settled(value: boolean): Deferred<boolean> {
  const d = deferred<boolean>();
  d.resolve(value);
  return d;
}
