import { BroadcastStoppedError } from '../../errors/broadcast-stopped.error.js';
import { isBroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import type {
  BroadcastState,
  BroadcastStatus,
} from '../../interfaces/broadcast-status.interface.js';
import { deferred, errorMessage, pause } from '../../shared/async.utils.js';
import {
  type Claim,
  eventOf,
  LOCK_LOST,
  type ReaderDeps,
  type ReaderEvent,
  type ReaderSettings,
} from './broadcast-reader.types.js';
import { describeRefusal, GroupJoins } from './group-joins.js';
import { GroupMembership } from './group-membership.js';
import { deleteLeftGroup } from './left-group.js';
import { LockWatch } from './lock-watch.js';
import { ReaderAllocation } from './reader-allocation.js';
import { ReaderProblem } from './reader-problem.js';
import { claimFields, readerStatus } from './reader-status.js';
import { TransitionChain } from './transition-chain.js';

export type { ReaderDeps, ReaderSettings } from './broadcast-reader.types.js';

/**
 * Reads every broadcast topic through one exclusively held consumer group, and keeps it so:
 * it rejoins the same group after a crash, and moves to another group when the lock is
 * lost or another member shows up. Every transition runs one at a time (TransitionChain).
 *
 * The lock is lost during a rejoin: the lock watch reports `lock-lost` (on), which aborts the
 * claim's loss signal and stops its membership; the rejoin's wait for a verdict (or its pause)
 * ends at once, it sees the loss and moves away (moveAway: leave the group, then unlock, then
 * allocate another group until one is verified ours or the reader stops).
 */
export class BroadcastReader {
  /** Written only in on(). */
  private state: BroadcastState = 'starting';
  private claim: Claim | undefined;
  private started = false;
  private wasReady = false;
  private readonly abort = new AbortController();
  private readonly ready = deferred<void>();
  private readonly transitions: TransitionChain;
  private lockWatch: LockWatch | undefined;
  private topics: string[] = [];
  private readonly joins: GroupJoins;
  private readonly allocation: ReaderAllocation;
  /** A failure retrying cannot fix (a missing ACL), reported once and shown in status(). */
  private readonly problem: ReaderProblem;

  /** @internal Built by BroadcastEngine; inject the instance (Nest) or read it from the engine. */
  constructor(
    private readonly settings: ReaderSettings,
    private readonly deps: ReaderDeps,
  ) {
    this.ready.promise.catch(() => {});
    const topics = () => this.topics;
    this.joins = new GroupJoins(settings, deps, topics, this.abort.signal);
    this.allocation = new ReaderAllocation(settings, deps, this.joins, topics, this.abort.signal);
    this.transitions = new TransitionChain(deps.logger);
    this.problem = new ReaderProblem(deps.logger, () => deps.dispatcher.counters().received);
  }

  /** The consumer group in use; undefined until one is allocated. */
  get groupId(): string | undefined {
    return this.claim?.groupId;
  }

  /** Resolves once a group is held exclusively and positioned; rejects if startup fails. */
  whenReady(): Promise<void> {
    return this.ready.promise;
  }

  status(): BroadcastStatus {
    return readerStatus(this.state, this.claim, this.deps, this.problem.current());
  }

  /** Creates missing topics, allocates a group and resolves when ready. */
  async start(): Promise<void> {
    // A second call shares the first one's outcome; a call after stop() starts nothing (no
    // topic check, no lock, no client) and rejects as stopped.
    if (this.started || this.abort.signal.aborted) return this.whenReady();
    this.started = true;
    this.deps.registry.freeze();
    const { topicPrefix, heartbeatTopic } = this.settings;
    this.topics = [...new Set([...this.deps.registry.topics(), heartbeatTopic])].map(
      (t) => topicPrefix + t,
    );
    // Part of the transition chain, so stop() waits for an allocation in flight and then
    // releases whatever it produced: a group claimed during shutdown is never leaked.
    const deadline = Date.now() + this.settings.startupTimeoutMs;
    const startup = this.allocation.once(deadline).then((claim) => this.adopt(claim));
    this.transitions.begin(startup);
    try {
      await startup;
      // stop() can land between the ready verdict and this line: it released the group, so
      // nothing may start now, and start() must not report success.
      if (this.abort.signal.aborted) throw new BroadcastStoppedError();
      this.startLockChecks();
    } catch (error) {
      if (!this.settings.failOnStartupTimeout && !this.abort.signal.aborted) {
        this.deps.logger.error(
          `Broadcast startup failed, retrying in the background: ${errorMessage(error)}`,
          undefined,
          { reason: errorMessage(error) },
        );
        this.startLockChecks();
        return this.transitions.schedule(() =>
          this.allocation.untilStopped((claim) => this.adopt(claim)),
        );
      }
      this.ready.reject(this.abort.signal.aborted ? new BroadcastStoppedError() : error);
      throw error;
    }
  }

  /** Leaves the group, then frees the lock. Idempotent. */
  async stop(): Promise<void> {
    if (this.abort.signal.aborted) return this.transitions.settled;
    this.abort.abort();
    this.lockWatch?.stop();
    this.ready.reject(new BroadcastStoppedError());
    await this.transitions.finish(() => this.abandon());
    this.on({ kind: 'stopped' });
  }

  /** Takes over a freshly verified group and watches what happens to it next. */
  private adopt(claim: Claim): void {
    this.claim = claim;
    // When stopping, stop() releases this claim right after the chain reaches it.
    if (this.abort.signal.aborted) return;
    this.watch(claim, claim.membership);
    this.on({ kind: 'ready', claim });
  }

  private watch(claim: Claim, membership: GroupMembership): void {
    membership.observe((verdict) => {
      if (claim.membership === membership) this.on(eventOf(claim, verdict));
    });
  }

  /** The one place the reader's state changes: each event, and the transition it starts. */
  private on(event: ReaderEvent): void {
    if (event.kind === 'stopped') return void (this.state = 'stopped');
    const { claim } = event;
    if (this.claim !== claim) return;
    if (event.kind === 'ready') {
      if (this.abort.signal.aborted) return;
      // Ready after a recovery; the first time, the engine writes the line (client, start-up time).
      if (this.state !== 'ready' && this.problem.current() === undefined && this.wasReady)
        this.deps.logger.log(`Reading broadcasts through consumer group ${claim.groupId}`);
      this.state = 'ready';
      this.wasReady = true;
      claim.membership.handOver();
      return this.ready.resolve();
    }
    this.state = 'recovering';
    // Leaving or rejoining either way: no handler runs on this membership any more.
    void claim.membership.stop();
    if (event.kind === 'crashed')
      return this.transitions.schedule(() => this.rejoin(claim, event.error));
    if (event.kind === 'lock-lost') claim.lockLost.abort();
    const reason =
      event.kind === 'lock-lost'
        ? LOCK_LOST
        : `member(s) ${event.memberIds.join(', ')} of another instance joined`;
    this.transitions.schedule(() => this.moveAway(claim, reason));
  }

  /** After a crash or an outage: the same group, a new member, positions kept. */
  private async rejoin(claim: Claim, cause: Error): Promise<void> {
    this.deps.probe?.('rejoin');
    // The lock watch stops the membership when the lock is lost, so its join never gives a
    // verdict: without this signal the rejoin would wait the whole join timeout to move away.
    const lost = claim.lockLost.signal;
    const waiting = AbortSignal.any([this.abort.signal, lost]);
    if (isBroadcastStartupError(cause)) {
      this.problem.note(cause);
      await pause(this.problem.crashPause(), waiting);
    } else
      this.deps.logger.warn(
        `Broadcast consumer of ${claim.groupId} stopped (${cause.message}); rejoining`,
        claimFields(claim, cause.message),
      );
    for (let attempt = 0; this.claim === claim && !this.abort.signal.aborted; attempt++) {
      await claim.membership.stop();
      if (lost.aborted || !(await claim.lock.isHeld())) return this.moveAway(claim, LOCK_LOST);
      const membership = new GroupMembership(
        claim.groupId,
        this.joins.context(),
        claim.ownMemberIds,
      );
      claim.membership = membership;
      const verdict = await this.joins.join(membership, Infinity, lost);
      if (this.abort.signal.aborted) return;
      // Whatever the verdict, a group whose lock was lost may be someone else's now.
      if (lost.aborted) continue;
      if (verdict.kind === 'ready') {
        this.watch(claim, membership);
        return this.on({ kind: 'ready', claim });
      }
      if (verdict.kind === 'foreign') return this.moveAway(claim, describeRefusal(verdict));
      // A missing ACL fails every attempt alike: one error, shown in status(), quiet retries.
      if (isBroadcastStartupError(verdict.error)) this.problem.note(verdict.error);
      else
        this.deps.logger.warn(
          `Rejoining ${claim.groupId} failed: ${verdict.error.message}`,
          claimFields(claim, verdict.error.message),
        );
      await pause(this.problem.rejoinPause(attempt), waiting);
    }
  }

  /** Gives up the group (leave first, then unlock) and allocates another, retrying until stopped. */
  private async moveAway(claim: Claim, reason: string): Promise<void> {
    if (this.claim !== claim) return;
    this.deps.probe?.('recover');
    this.deps.logger.warn(
      `Giving up broadcast group ${claim.groupId}: ${reason}`,
      claimFields(claim, reason),
    );
    await this.abandon();
    await this.allocation.untilStopped((claim) => this.adopt(claim));
  }

  private async abandon(): Promise<void> {
    const claim = this.claim;
    this.claim = undefined;
    if (!claim) return;
    await claim.membership.stop();
    // Stopping (not moving away: then someone else may be in it): the group goes with us.
    if (this.abort.signal.aborted)
      await deleteLeftGroup(this.deps.kafka.admin, claim.groupId, this.deps.logger);
    await claim.lock.release();
  }

  /** A lock whose connection died may already belong to someone else: stop using its group. */
  private startLockChecks(): void {
    if (this.deps.locks.mode === 'none' || this.abort.signal.aborted) return;
    this.lockWatch ??= new LockWatch(
      this.settings.lockCheckIntervalMs,
      () => this.claim?.lock,
      () => this.claim && this.on({ kind: 'lock-lost', claim: this.claim }),
    );
    this.lockWatch.start();
  }
}
