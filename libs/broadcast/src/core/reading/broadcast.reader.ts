import { BroadcastStoppedError } from '../../errors/broadcast-stopped.error.js';
import { isBroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import type {
  BroadcastState,
  BroadcastStatus,
} from '../../interfaces/broadcast-status.interface.js';
import { deferred, errorMessage, pause } from '../../shared/async.utils.js';
import type { Claim, ReaderDeps, ReaderSettings } from './broadcast-reader.types.js';
import { describeRefusal, GroupJoins } from './group-joins.js';
import { GroupMembership } from '../allocation/group-membership.js';
import { LockWatch } from '../allocation/lock-watch.js';
import { ReaderAllocation } from './reader-allocation.js';
import { ReaderProblem } from './reader-problem.js';
import { claimFields, readerStatus } from './reader-status.js';
import { TransitionChain } from './transition-chain.js';

export type { ReaderDeps, ReaderSettings } from './broadcast-reader.types.js';

/**
 * Reads every broadcast topic through one exclusively held consumer group, and keeps it so:
 * it rejoins the same group after a crash, and moves to another group when the lock is
 * lost or another member shows up. Every transition runs one at a time.
 */
export class BroadcastReader {
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
  /** Per claim, aborted once its lock was found lost: a rejoin in flight ends at once. */
  private readonly lockLost = new WeakMap<Claim, AbortController>();

  /** @internal Built by BroadcastEngine; inject the instance (Nest) or read it from the engine. */
  constructor(
    private readonly settings: ReaderSettings,
    private readonly deps: ReaderDeps,
  ) {
    this.ready.promise.catch(() => {});
    this.joins = new GroupJoins(settings, deps, () => this.topics, this.abort.signal);
    const topics = () => this.topics;
    this.allocation = new ReaderAllocation(settings, deps, this.joins, topics, this.abort.signal);
    this.transitions = new TransitionChain(deps.logger);
    this.problem = new ReaderProblem(deps.logger, () => deps.dispatcher.received);
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
    const startup = this.allocateOnce(Date.now() + this.settings.startupTimeoutMs);
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
        return this.transitions.schedule(() => this.allocateUntilStopped());
      }
      this.ready.reject(this.abort.signal.aborted ? new BroadcastStoppedError() : error);
      throw error;
    }
  }

  private async allocateOnce(deadline: number): Promise<void> {
    this.adopt(await this.allocation.once(deadline));
  }

  /** Leaves the group, then frees the lock. Idempotent. */
  async stop(): Promise<void> {
    if (this.abort.signal.aborted) return this.transitions.settled;
    this.abort.abort();
    this.lockWatch?.stop();
    this.ready.reject(new BroadcastStoppedError());
    await this.transitions.finish(() => this.abandon());
    this.state = 'stopped';
  }

  /** Takes over a freshly verified group and watches what happens to it next. */
  private adopt(claim: Claim): void {
    this.claim = claim;
    // When stopping, stop() releases this claim right after the chain reaches it.
    if (this.abort.signal.aborted) return;
    this.watch(claim, claim.value.membership);
    this.becomeReady(claim);
  }

  private watch(claim: Claim, membership: GroupMembership): void {
    membership.observe((verdict) => {
      if (this.claim !== claim || claim.value.membership !== membership) return;
      if (verdict.kind === 'ready') return this.becomeReady(claim);
      this.state = 'recovering';
      // Leaving or rejoining either way: no handler runs on this membership any more.
      void membership.stop();
      if (verdict.kind === 'foreign') {
        const reason = `member(s) ${verdict.memberIds.join(', ')} of another instance joined`;
        this.transitions.schedule(() => this.moveAway(claim, reason));
      } else {
        this.transitions.schedule(() => this.rejoin(claim, verdict.error));
      }
    });
  }

  private becomeReady(claim: Claim): void {
    if (this.claim !== claim || this.abort.signal.aborted) return;
    // Ready after a recovery; the first time, the engine writes the line (client, start-up time).
    if (this.state !== 'ready' && this.problem.current() === undefined && this.wasReady)
      this.deps.logger.log(`Reading broadcasts through consumer group ${claim.groupId}`);
    this.state = 'ready';
    this.wasReady = true;
    claim.value.membership.handOver();
    this.ready.resolve();
  }

  /** After a crash or an outage: the same group, a new member, positions kept. */
  private async rejoin(claim: Claim, cause: Error): Promise<void> {
    this.deps.probe?.('rejoin');
    // The lock watch stops the membership when the lock is lost, so its join never gives a
    // verdict: without this signal the rejoin would wait the whole join timeout to move away.
    const lost = this.lossOf(claim).signal;
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
      await claim.value.membership.stop();
      if (lost.aborted || !(await claim.lock.isHeld()))
        return this.moveAway(claim, 'the advisory lock was lost');
      const membership = new GroupMembership(
        claim.groupId,
        this.joins.context(),
        claim.value.ownMemberIds,
      );
      claim.value.membership = membership;
      const verdict = await this.joins.join(membership, Infinity, lost);
      if (this.abort.signal.aborted) return;
      // Whatever the verdict, a group whose lock was lost may be someone else's now.
      if (lost.aborted) continue;
      if (verdict.kind === 'ready') {
        this.watch(claim, membership);
        return this.becomeReady(claim);
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
    this.state = 'recovering';
    await this.abandon();
    await this.allocateUntilStopped();
  }

  private allocateUntilStopped(): Promise<void> {
    return this.allocation.untilStopped((claim) => this.adopt(claim));
  }

  private async abandon(): Promise<void> {
    const claim = this.claim;
    this.claim = undefined;
    if (!claim) return;
    await claim.value.membership.stop();
    await claim.lock.release();
  }

  /** A lock whose connection died may already belong to someone else: stop using its group. */
  private startLockChecks(): void {
    if (this.deps.locks.mode === 'none' || this.abort.signal.aborted) return;
    this.lockWatch ??= new LockWatch(
      this.settings.lockCheckIntervalMs,
      () => this.claim?.lock,
      () => {
        const claim = this.claim;
        if (!claim) return;
        this.state = 'recovering';
        this.lossOf(claim).abort();
        void claim.value.membership.stop();
        this.transitions.schedule(() => this.moveAway(claim, 'the advisory lock was lost'));
      },
    );
    this.lockWatch.start();
  }

  private lossOf(claim: Claim): AbortController {
    let lost = this.lockLost.get(claim);
    if (!lost) this.lockLost.set(claim, (lost = new AbortController()));
    return lost;
  }
}
