import type {
  GroupConsumerListener,
  GroupConsumerPort,
  RecordSink,
} from '../../interfaces/kafka-port.interface.js';
import {
  asError,
  backoffDelay,
  errorMessage,
  pause,
  withTimeout,
} from '../../shared/async.utils.js';
import { crashVerdict } from './crash-verdict.js';
import { heldSink, reportedWhileReading } from './held-records.js';
import { describeMembers, logContest, seekAll } from './membership-calls.js';
import {
  type MembershipContext,
  type MembershipEvent,
  type MembershipPhase,
  type MembershipVerdict,
  type Round,
  LEAVE_MS,
  type VerdictChannel,
  VERIFY_ATTEMPTS,
} from './membership.types.js';
import { VerdictDeadline } from './membership-deadline.js';
import { endRound, liveRound, nextRound } from './membership-rounds.js';

export type {
  MembershipContext,
  MembershipVerdict,
  StepProbe,
  VerdictChannel,
} from './membership.types.js';

/**
 * One consumer in one broadcast group, from its join to its stop. After every (re)join it
 * checks with describeGroups that the only member is this one, by member id: counting members
 * is not enough, since a prober could see only someone else's member.
 *
 * A foreign member joins: the verification lists it (`collided`). A member that never held the
 * group alone, and is not the generation's leader, yields at once (verdict `foreign`). An
 * established member (it held the group alone: the newcomer deleted the group just before we
 * joined it, and leaves by itself) waits `contestGraceMs`; the leader of newcomers that joined
 * the same empty group together (lock-free mass starts) waits half of it, so that if the other
 * member is established the newcomer gives up. Meanwhile the group is described again
 * (`contest-ended` once the others left or the grace ended): alone, it is verified again and
 * kept; otherwise this member yields.
 * The reader answers `foreign` by moving to another group (see BroadcastReader).
 *
 * Every verdict goes to the channel given at creation, in order, from the first one on (none can
 * arrive before someone listens). Until a verdict, a deadline runs (see start()): no join waits
 * without a bound.
 */
export class GroupMembership implements GroupConsumerListener {
  private phase: MembershipPhase = { name: 'joining' };
  private readonly consumer: GroupConsumerPort;
  private readonly abort = new AbortController();
  /** When the verdict under way is due. */
  private readonly deadline = new VerdictDeadline((ms) => this.decide({ kind: 'deadline', ms }));
  private stopping: Promise<void> | undefined;

  /**
   * @param ownMemberIds members of this instance from earlier memberships of the same
   *   group, which may linger after a crash; they are ours, so not a reason to give up.
   * @param report where every verdict goes (the reader's `on()`).
   */
  constructor(
    readonly groupId: string,
    private readonly ctx: MembershipContext,
    private readonly ownMemberIds: Set<string>,
    private readonly report: VerdictChannel<GroupMembership>,
  ) {
    this.consumer = ctx.kafka.createGroupConsumer({
      groupId,
      topics: ctx.topics,
      // Every assigned partition is sought at every join, and a position that fell out of the
      // log's range is decided by the engine (outOfRange), so nothing relies on this; should a
      // client ever fetch a partition nobody sought, the sink's guard still refuses old records.
      fromBeginning: true,
      // The group's own id: under KIP-848 the broker refuses a second instance's member at once
      // (issue #37), the first to join keeps the group; elsewhere the verification decides.
      instanceId: groupId,
      sink: this.sink,
      listener: this,
      progress: ctx.progress && reportedWhileReading(() => this.phase, ctx.progress),
      outOfRange: ctx.outOfRange,
    });
  }

  /**
   * Starts the consumer. Its first verdict is due within `timeoutMs`; a verdict that does not
   * come by then is `failed` (`no verdict within …`). Later generations that are not read from
   * yet get `joinTimeoutMs` each, and a wait for an earlier member of ours `predecessorWaitMs`.
   */
  start(timeoutMs: number): void {
    this.deadline.arm(timeoutMs);
    this.consumer.start().catch((error: unknown) => this.crashed(asError(error)));
  }

  /** Stops the consumer (it leaves the group); bounded by LEAVE_MS, then given up on. */
  stop(): Promise<void> {
    this.decide({ kind: 'stop' });
    this.stopping ??= withTimeout(this.consumer.stop(), LEAVE_MS, `leaving ${this.groupId}`)
      .catch((error: unknown) =>
        this.ctx.logger.warn(`Broadcast consumer of ${this.groupId}: ${errorMessage(error)}`, {
          group: this.groupId,
          reason: errorMessage(error),
        }),
      )
      .then(() => this.decide({ kind: 'stopped' }));
    return this.stopping;
  }

  /**
   * The reader took this membership over as ready: records fetched from now on, and those held
   * until now, go to the handlers. Called once the verdict `ready` was adopted (not at the
   * verification itself), so that no handler runs while the reader still reports another state.
   */
  handOver(): void {
    this.decide({ kind: 'handed-over' });
  }

  joined(
    memberId: string,
    assignment: ReadonlyMap<string, readonly number[]>,
    leader: boolean,
  ): void {
    this.ownMemberIds.add(memberId);
    this.decide({ kind: 'joined', memberId, leader, assignment });
  }

  /** Known before the broker answers: a member that join leaves behind is ours, not foreign. */
  joining(memberId: string): void {
    this.ownMemberIds.add(memberId);
  }

  /** A crash, or a fence or expiry the client reports as one. */
  crashed(error: Error): void {
    this.decide({ kind: 'crashed', error });
  }

  /** The one place a membership changes phase: each event, and what it leads to. */
  private decide(event: MembershipEvent): void {
    const phase = this.phase;
    if (phase.name === 'stopped') return;
    if (event.kind === 'stop' || event.kind === 'stopped') {
      endRound(phase);
      this.deadline.disarm();
      this.phase = { name: event.kind === 'stop' ? 'leaving' : 'stopped' };
      return this.abort.abort();
    }
    if (phase.name === 'leaving') return;
    if (event.kind === 'crashed') return this.giveUp(crashVerdict(event.error, this.ownMemberIds));
    if (event.kind === 'deadline') {
      // Verified or read from: a verdict came, nothing is due.
      if (phase.name === 'verified' || phase.name === 'reading') return;
      const error = new Error(`no verdict within ${event.ms} ms`);
      return this.giveUp({ kind: 'failed', error });
    }
    const round = liveRound(phase);
    if (event.kind === 'joined') {
      this.ctx.probe?.('joined');
      // A contest belongs to the generation that saw the other member: this one is judged anew.
      endRound(phase);
      const next = nextRound(round, event.memberId, event.leader);
      // A generation nobody reads from yet owes a verdict in time (the first one's deadline
      // runs from start()).
      if (!next.adopted && !this.deadline.armed) this.deadline.arm(this.ctx.joinTimeoutMs);
      this.phase = { name: 'verifying', round: next };
      seekAll(this.consumer, this.ctx, event.assignment);
      return void this.verify(next.generation);
    }
    if (!round) return;
    if (event.kind === 'handed-over') {
      round.adopted = true;
      round.proof.resolve(true);
      if (phase.name === 'verified') this.phase = { name: 'reading', round };
      return;
    }
    // The rest answer one generation's verification or contest; a later generation's is judged
    // anew, and a verdict of an earlier one no longer counts.
    const expected = event.kind === 'contest-ended' ? 'contesting' : 'verifying';
    if (phase.name !== expected || round.generation !== event.generation) return;
    switch (event.kind) {
      case 'alone':
        round.established = true;
        if (round.contested) logContest(this.ctx, this.groupId, 'left', round.contested);
        round.contested = undefined;
        this.deadline.disarm();
        this.phase = { name: round.adopted ? 'reading' : 'verified', round };
        // Positions were sought at the join, before any fetch: exclusivity was all that was missing.
        return this.report(this, { kind: 'ready' });
      case 'predecessor':
        this.ctx.logger.log(
          `Waiting for an earlier member of ${this.groupId} to expire before reading`,
        );
        // Its session bounds the wait: the broker removes it then, and the group rebalances.
        if (!round.adopted) this.deadline.arm(this.ctx.predecessorWaitMs);
        this.phase = { name: 'waiting', round };
        return;
      case 'unverified':
        return this.giveUp({
          kind: 'failed',
          error: new Error(`could not confirm exclusive use of ${this.groupId}`),
        });
      case 'collided':
        if (round.established) {
          logContest(this.ctx, this.groupId, 'joined', event.foreign);
          return this.contest(round, event.foreign, this.ctx.contestGraceMs);
        }
        if (!round.leader) return this.giveUp({ kind: 'foreign', memberIds: event.foreign });
        logContest(this.ctx, this.groupId, 'joined together', event.foreign);
        return this.contest(round, event.foreign, this.ctx.contestGraceMs / 2);
      case 'contest-ended':
        if (event.staying.length === 0) {
          this.phase = { name: 'verifying', round };
          return void this.verify(round.generation);
        }
        round.contested = undefined;
        return this.giveUp({ kind: 'foreign', memberIds: event.staying });
    }
  }

  /** Reports a foreign or failed verdict: the group is given up, nothing reaches the handlers. */
  private giveUp(verdict: MembershipVerdict): void {
    endRound(this.phase);
    this.deadline.disarm();
    this.phase = { name: 'leaving' };
    this.report(this, verdict);
  }

  private contest(round: Round, foreign: string[], graceMs: number): void {
    round.contested = foreign;
    const timer = this.lookAgain(round.generation, foreign, Date.now() + graceMs, 0);
    this.phase = { name: 'contesting', round, foreign, timer };
  }

  /**
   * The contest looks again soon (100 ms, doubling to 1 s), not only when its grace ends: the
   * other member usually leaves within moments, and no new generation may say so (a KIP-848
   * epoch can move with the same partitions; the next heartbeat can be seconds away).
   */
  private lookAgain(generation: number, seen: string[], until: number, look: number) {
    const delay = Math.min(backoffDelay(look, 100, 1_000), Math.max(0, until - Date.now()));
    return setTimeout(() => void this.recheck(generation, seen, until, look + 1), delay);
  }

  /** A describe that failed proves nothing: the members seen at the start count. */
  private async recheck(generation: number, seen: string[], until: number, look: number) {
    const contest = () => (this.phase.name === 'contesting' ? this.phase : undefined);
    if (contest()?.round.generation !== generation) return;
    const now = await describeMembers(this.ctx, this.groupId);
    const staying = now?.filter((id) => !this.ownMemberIds.has(id)) ?? seen;
    const phase = contest();
    if (phase?.round.generation !== generation) return;
    if (staying.length > 0 && Date.now() < until)
      phase.timer = this.lookAgain(generation, seen, until, look);
    else this.decide({ kind: 'contest-ended', generation, staying });
  }

  /** Describes the group until it is decided; each finding goes to `decide`. */
  private async verify(generation: number): Promise<void> {
    const current = () => {
      const phase = this.phase;
      return phase.name === 'verifying' && phase.round.generation === generation;
    };
    for (let attempt = 0; attempt < VERIFY_ATTEMPTS; attempt++) {
      if (attempt > 0) await pause(backoffDelay(attempt, 50, 1_000), this.abort.signal);
      if (!current()) return;
      this.ctx.probe?.('verify');
      const members = await describeMembers(this.ctx, this.groupId);
      const round = liveRound(this.phase);
      if (!current() || !members || !round) continue;
      const foreign = members.filter((id) => !this.ownMemberIds.has(id));
      if (foreign.length > 0) return this.decide({ kind: 'collided', generation, foreign });
      // A describe that does not list us yet saw the group before our join completed.
      if (!members.includes(round.memberId)) continue;
      return this.decide({ kind: members.length > 1 ? 'predecessor' : 'alone', generation });
    }
    this.decide({ kind: 'unverified', generation });
  }

  /** Records reach the handlers only once the reader adopted this membership (held-records). */
  private readonly sink: RecordSink = heldSink(
    () => this.phase,
    (topic, partition, record) => this.ctx.sink(topic, partition, record),
    (topic, partition) =>
      this.consumer.seek(topic, partition, this.ctx.positionOf(topic, partition)),
  );
}
