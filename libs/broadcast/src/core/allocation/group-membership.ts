import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import type {
  GroupConsumerListener,
  GroupConsumerPort,
  GroupConsumerSpec,
  KafkaPort,
  RecordSink,
} from '../../interfaces/kafka-port.interface.js';
import {
  asError,
  backoffDelay,
  type Deferred,
  deferred,
  errorMessage,
  pause,
} from '../../shared/async.utils.js';

/** What one join attempt came to. */
export type MembershipVerdict =
  { kind: 'ready' } | { kind: 'foreign'; memberIds: string[] } | { kind: 'failed'; error: Error };

export interface MembershipContext {
  kafka: KafkaPort;
  topics: readonly string[];
  sink: RecordSink;
  logger: BroadcastLogger;
  /** Where the engine reads a partition from (see ReadPositions); sought on every assignment. */
  positionOf(topic: string, partition: number): string;
  /** How far the consumer read, filtered records included (see GroupConsumerSpec.progress). */
  progress?: GroupConsumerSpec['progress'];
  /** Where a position the log no longer holds continues (see GroupConsumerSpec.outOfRange). */
  outOfRange?: GroupConsumerSpec['outOfRange'];
  /** Test-only hook: called at each startup step, so a test can stop right there. */
  probe?: StepProbe;
  /** How long a member that already held the group exclusively waits for a newcomer to leave. */
  contestGraceMs: number;
}

const VERIFY_ATTEMPTS = 10;

/**
 * Longest a record fetched before the verification is held back. A verification that takes
 * longer (retries, or an earlier member still expiring) must not block the client's fetch loop
 * beyond this (kafkajs sends heartbeats from it): the record is dropped and its partition
 * sought back to the engine's position, so it is fetched again later.
 */
const HOLD_MS = 1_000;

/** Internal test hook: called with the name of each startup step as it begins. */
export type StepProbe = (step: string) => void;

/**
 * One consumer in one broadcast group. After every (re)join it checks with describeGroups
 * that the only member is this one, by member id: counting members is not enough, since
 * a prober could see only someone else's member.
 */
export class GroupMembership implements GroupConsumerListener {
  memberId: string | undefined;
  private readonly consumer: GroupConsumerPort;
  private generation = 0;
  private exclusive = false;
  private stopped = false;
  private readonly abort = new AbortController();
  /** Verified as the only member in some generation: the group is ours, newcomers must yield. */
  private established = false;
  /** This generation's leader, as the coordinator chose it (the same answer for every member). */
  private leader = false;
  private contestTimer: NodeJS.Timeout | undefined;
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
    this.consumer = ctx.kafka.createGroupConsumer({
      groupId,
      topics: ctx.topics,
      // Every assigned partition is sought at every join, and a position that fell out of the
      // log's range is decided by the engine (outOfRange), so nothing relies on this; should a
      // client ever fetch a partition nobody sought, the sink's guard still refuses old records.
      fromBeginning: true,
      sink: this.sink,
      listener: this,
      probe: ctx.probe,
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
    clearTimeout(this.contestTimer);
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
    this.memberId = memberId;
    this.leader = leader;
    this.exclusive = false;
    // A contest belongs to the generation that saw the other member: this one is judged anew.
    clearTimeout(this.contestTimer);
    this.contestTimer = undefined;
    this.proof.resolve(false);
    this.proof = deferred<boolean>();
    this.seekAll(assignment);
    void this.verify(generation);
  }

  /** Positions are sought at every join, so a resolved fetch adds nothing to readiness. */
  positioned(): void {}

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

  /**
   * Gives the other members `graceMs` to leave (see collided); if they are still there then,
   * we leave instead.
   */
  private contest(foreign: string[], graceMs: number): void {
    if (this.contestTimer) return;
    const generation = this.generation;
    this.contestTimer = setTimeout(() => {
      this.contestTimer = undefined;
      if (!this.stopped && generation === this.generation)
        this.observer({ kind: 'foreign', memberIds: foreign });
    }, graceMs);
  }

  /**
   * A newcomer that deleted the group just before we joined it sees an established member and
   * leaves by itself (it never held the group alone): the established member waits for that
   * instead of both leaving. Newcomers that joined the same empty group together (lock-free
   * mass starts; on brokers with an initial rebalance delay, everyone who joins within it): the
   * generation's leader keeps the group and the others leave at once, so each collision still
   * places one instance instead of none. The leader waits half as long as an established member
   * would, so that if the other member is one (it rejoined late and lost the leadership) the
   * newcomer is the one that gives up. A newcomer hands nothing to the handlers before it is
   * alone either way (see sink).
   */
  private collided(foreign: string[]): void {
    if (this.established) {
      this.ctx.logger.warn(
        `Member(s) ${foreign.join(', ')} of another instance joined ${this.groupId}; waiting for them to leave`,
        { group: this.groupId, reason: 'foreign member', members: foreign.join(',') },
      );
      return this.contest(foreign, this.ctx.contestGraceMs);
    }
    if (!this.leader) return this.observer({ kind: 'foreign', memberIds: foreign });
    this.ctx.logger.debug?.(
      `Joined ${this.groupId} together with member(s) ${foreign.join(', ')}; as the leader, waiting for them to leave`,
      { group: this.groupId, reason: 'joined together', members: foreign.join(',') },
    );
    this.contest(foreign, this.ctx.contestGraceMs / 2);
  }

  private async verify(generation: number): Promise<void> {
    for (let attempt = 0; attempt < VERIFY_ATTEMPTS; attempt++) {
      if (attempt > 0) await pause(backoffDelay(attempt, 50, 1_000), this.abort.signal);
      if (this.stopped || generation !== this.generation) return;
      this.ctx.probe?.('verify');
      const members = await this.describeMembers();
      if (this.stopped || generation !== this.generation || !members) continue;
      const foreign = members.filter((id) => id !== this.memberId && !this.ownMemberIds.has(id));
      if (foreign.length > 0) return this.collided(foreign);
      // A describe that does not list us yet saw the group before our join completed.
      if (!members.includes(this.memberId!)) continue;
      if (members.length > 1) {
        this.ctx.logger.log(
          `Waiting for an earlier member of ${this.groupId} to expire before reading`,
        );
        return;
      }
      this.exclusive = true;
      this.established = true;
      clearTimeout(this.contestTimer);
      this.contestTimer = undefined;
      return this.announceIfReady();
    }
    if (!this.stopped && generation === this.generation) {
      this.observer({
        kind: 'failed',
        error: new Error(`could not confirm exclusive use of ${this.groupId}`),
      });
    }
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

  /** Positions were sought at the join, before any fetch: exclusivity is all that is missing. */
  private announceIfReady(): void {
    if (this.exclusive && !this.stopped) this.observer({ kind: 'ready' });
  }
}

function settled(value: boolean): Deferred<boolean> {
  const d = deferred<boolean>();
  d.resolve(value);
  return d;
}
