import { BroadcastStoppedError } from '../../errors/broadcast-stopped.error.js';
import { deferred, errorMessage } from '../../shared/async.utils.js';
import {
  type Claim,
  LOCK_LOST,
  type ReaderDeps,
  type ReaderEvent,
  type ReaderPhase,
  type ReaderSettings,
} from './broadcast-reader.types.js';
import { GroupJoins, refusalOf } from './group-joins.js';
import type { GroupMembership, MembershipVerdict } from './group-membership.js';
import { LockWatch } from './lock-watch.js';
import { ReaderAllocation } from './reader-allocation.js';
import {
  claimFields,
  claimOf,
  publicState,
  readerStatus,
  type ReaderStatus,
} from './reader-phase.js';
import { ReaderProblem } from './reader-problem.js';
import { ReaderSteps } from './reader-steps.js';
import { TransitionChain } from './transition-chain.js';

export type { ReaderDeps, ReaderSettings } from './broadcast-reader.types.js';
export type { ReaderStatus } from './reader-phase.js';

type Phase<N extends ReaderPhase['name']> = Extract<ReaderPhase, { name: N }>;

/**
 * Reads every broadcast topic through one exclusively held consumer group, and keeps it so:
 * it rejoins the same group after a crash, and moves to another group when the lock is lost or
 * another member shows up.
 *
 * One state machine: the phase (ReaderPhase) changes only in `on()`, which every membership
 * verdict (each membership's channel, from its creation), every lock loss, every step's
 * outcome and stop() enter. `on()` decides at once and schedules the slow part (a rejoin, a
 * move, the stop's release) on the transition chain, which runs them one at a time; a step
 * finding the phase changed under it (`this.phase !== phase`) ends there. Every wait of a step
 * is bounded: a membership's verdict by its deadline (GroupMembership.start), its leave by
 * LEAVE_MS, the allocation by the start-up budget, a pause by its length.
 */
export class BroadcastReader {
  private phase: ReaderPhase = { name: 'idle' };
  private everReady = false;
  private readonly abort = new AbortController();
  private readonly ready = deferred<void>();
  private readonly transitions: TransitionChain;
  private lockWatch: LockWatch | undefined;
  private topics: string[] = [];
  private readonly joins: GroupJoins;
  private readonly allocation: ReaderAllocation;
  /** The slow part of each transition (rejoin, move, the stop's release). */
  private readonly steps: ReaderSteps;
  /** A failure retrying cannot fix (a missing ACL), reported once and shown in status(). */
  private readonly problem: ReaderProblem;

  /** @internal Built by BroadcastEngine; inject the instance (Nest) or read it from the engine. */
  constructor(
    private readonly settings: ReaderSettings,
    private readonly deps: ReaderDeps,
  ) {
    this.ready.promise.catch(() => {});
    const topics = () => this.topics;
    const host = { phase: () => this.phase, on: (event: ReaderEvent) => this.on(event) };
    this.joins = new GroupJoins(settings, deps, topics, (membership, verdict) =>
      this.on({ kind: 'verdict', membership, verdict }),
    );
    const { signal } = this.abort;
    this.allocation = new ReaderAllocation(settings, deps, this.joins, host, topics, signal);
    this.steps = new ReaderSteps(deps, this.joins, this.allocation, host);
    this.transitions = new TransitionChain(deps.logger);
    this.problem = new ReaderProblem(deps.logger, () => deps.dispatcher.counters().received);
  }

  /** The consumer group in use; undefined until one is allocated. */
  get groupId(): string | undefined {
    return claimOf(this.phase)?.groupId;
  }

  /** Resolves once a group is held exclusively and positioned; rejects if startup fails. */
  whenReady(): Promise<void> {
    return this.ready.promise;
  }

  /** The reader's own part of BroadcastStatus (the engine adds counters and the pool). */
  status(): ReaderStatus {
    const { locks, allocator } = this.deps;
    return readerStatus(this.phase, this.everReady, locks.mode, allocator.exhausted, this.problem);
  }

  /** Creates missing topics, allocates a group and resolves when ready. */
  async start(): Promise<void> {
    // A second call shares the first one's outcome; a call after stop() starts nothing (no
    // topic check, no lock, no client) and rejects as stopped.
    if (this.phase.name !== 'idle') return this.whenReady();
    this.on({ kind: 'start' });
    this.deps.registry.freeze();
    const { topicPrefix, heartbeatTopic } = this.settings;
    this.topics = [...new Set([...this.deps.registry.topics(), heartbeatTopic])].map(
      (t) => topicPrefix + t,
    );
    // Part of the transition chain, so stop() waits for an allocation in flight and then
    // releases whatever it produced: a group claimed during shutdown is never leaked.
    const deadline = Date.now() + this.settings.startupTimeoutMs;
    const startup = this.allocation
      .once(deadline)
      .then((claim) => this.on({ kind: 'claimed', claim }));
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
          this.allocation.untilStopped((claim) => this.on({ kind: 'claimed', claim })),
        );
      }
      this.ready.reject(this.abort.signal.aborted ? new BroadcastStoppedError() : error);
      throw error;
    }
  }

  /** Leaves the group, then frees the lock. Idempotent. */
  async stop(): Promise<void> {
    if (this.phase.name === 'stopping' || this.phase.name === 'stopped')
      return this.transitions.settled;
    this.on({ kind: 'stop' });
    await this.transitions.finish(() => this.steps.release());
    this.on({ kind: 'stopped' });
  }

  /**
   * The one place the reader's phase changes: each event, in the phase it finds, and the step
   * it starts. Events that no longer concern the phase (a verdict of an earlier membership, a
   * lock of a group given up) change nothing.
   */
  private on(event: ReaderEvent): void {
    const phase = this.phase;
    if (phase.name === 'stopped') return;
    switch (event.kind) {
      case 'start':
        return this.enter({ name: 'allocating' });
      case 'stop':
        return this.stopping(phase);
      case 'stopped':
        return this.enter({ name: 'stopped' });
      case 'allocating':
        if (phase.name === 'joining' || phase.name === 'moving') this.enter({ name: 'allocating' });
        return;
      case 'candidate': {
        // A stop answers the allocation at once: it releases the group itself.
        if (phase.name === 'stopping') return event.verdict(stoppedVerdict());
        const { membership, verdict, timeoutMs } = event;
        this.enter({ name: 'joining', membership, verdict, answered: false });
        return membership.start(timeoutMs);
      }
      case 'claimed':
        return this.claimed(phase, event.claim);
      case 'verdict':
        return this.verdict(phase, event.membership, event.verdict);
      case 'lock-lost': {
        const claim = claimOf(phase);
        if (claim?.lock !== event.lock || (phase.name !== 'ready' && phase.name !== 'rejoining'))
          return;
        return this.giveUp(claim, LOCK_LOST);
      }
      case 'rejoin-attempt':
        if (phase.name !== 'rejoining') return;
        this.enter({ ...phase, claim: event.claim, joining: true });
        return event.claim.membership.start(this.settings.joinTimeoutMs);
      case 'left':
        if (phase.name === 'moving') this.enter({ name: 'allocating' });
        return;
    }
  }

  private enter(phase: ReaderPhase): void {
    const left = this.phase;
    // A pause of the phase left ends now: its step sees the change and returns.
    if (left.name === 'rejoining' && left !== phase) left.wake.abort();
    this.phase = phase;
  }

  /** A verdict of a membership: only the current one's counts. */
  private verdict(phase: ReaderPhase, membership: GroupMembership, verdict: MembershipVerdict) {
    if (phase.name === 'joining') {
      if (phase.membership !== membership) return;
      // The allocation gets the first verdict; a later one is kept for the adoption.
      if (!phase.answered) {
        this.enter({ ...phase, answered: true });
        return phase.verdict(verdict);
      }
      if (phase.next === undefined && verdict.kind !== 'ready')
        this.enter({ ...phase, answered: true, next: verdict });
      return;
    }
    const claim = claimOf(phase);
    if (claim?.membership !== membership) return;
    if (phase.name !== 'ready' && phase.name !== 'rejoining') return;
    if (verdict.kind === 'ready') return this.readyWith(claim);
    if (verdict.kind === 'foreign')
      return this.giveUp(claim, describeForeign(verdict.memberIds) + refusalOf(verdict));
    this.rejoining(phase, claim, verdict.error);
  }

  /** The allocation kept a verified group. */
  private claimed(phase: ReaderPhase, claim: Claim): void {
    // When stopping, stop() releases this claim right after the chain reaches it.
    if (phase.name === 'stopping') return this.enter({ ...phase, claim, deleteGroup: true });
    const later = phase.name === 'joining' ? phase.next : undefined;
    this.readyWith(claim);
    // A verdict that came after the first one (a crash at once) is acted on now, not lost.
    if (later) this.on({ kind: 'verdict', membership: claim.membership, verdict: later });
  }

  private readyWith(claim: Claim): void {
    // Ready after a recovery; the first time, the engine writes the line (client, start-up time).
    if (this.phase.name !== 'ready' && this.everReady && this.problem.current() === undefined)
      this.deps.logger.log(`Reading broadcasts through consumer group ${claim.groupId}`);
    this.enter({ name: 'ready', claim });
    this.everReady = true;
    claim.membership.handOver();
    this.ready.resolve();
  }

  /** After a crash or a failed attempt: the same group, a new member, positions kept. */
  private rejoining(phase: Phase<'ready' | 'rejoining'>, claim: Claim, cause: Error): void {
    const attempt = phase.name === 'rejoining' ? phase.attempt + 1 : 0;
    // A missing ACL fails every attempt alike: one error, shown in status(), quiet retries.
    const pauseMs = this.problem.rejoinAfter(claim, cause, attempt);
    const wake = new AbortController();
    const next: Phase<'rejoining'> = { name: 'rejoining', claim, attempt, joining: false, wake };
    this.enter(next);
    // No handler runs on this membership any more.
    void claim.membership.stop();
    this.transitions.schedule(() => this.steps.rejoin(next, pauseMs));
  }

  /** The group may be someone else's: leave it, unlock it, then find another. */
  private giveUp(claim: Claim, reason: string): void {
    this.deps.logger.warn(
      `Giving up broadcast group ${claim.groupId}: ${reason}`,
      claimFields(claim, reason),
    );
    const next: Phase<'moving'> = { name: 'moving', claim, reason };
    this.enter(next);
    // Leaving or rejoining either way: no handler runs on this membership any more.
    void claim.membership.stop();
    this.transitions.schedule(() => this.steps.moveAway(next));
  }

  /** stop(): the one place it is decided what a stop leaves, deletes and releases. */
  private stopping(phase: ReaderPhase): void {
    const claim = claimOf(phase);
    // A group given up (lock lost, another member) may be someone else's now: never deleted.
    const deleteGroup = phase.name === 'ready' || phase.name === 'rejoining';
    if (phase.name === 'joining' && !phase.answered) phase.verdict(stoppedVerdict());
    this.enter({
      name: 'stopping',
      claim,
      deleteGroup,
      state: publicState(phase, this.everReady),
    });
    this.abort.abort();
    this.lockWatch?.stop();
    this.ready.reject(new BroadcastStoppedError());
  }

  /** A lock whose connection died may already belong to someone else: stop using its group. */
  private startLockChecks(): void {
    if (this.deps.locks.mode === 'none' || this.abort.signal.aborted) return;
    this.lockWatch ??= new LockWatch(
      this.settings.lockCheckIntervalMs,
      () => claimOf(this.phase)?.lock,
      (lock) => this.on({ kind: 'lock-lost', lock }),
    );
    this.lockWatch.start();
  }
}

function stoppedVerdict(): MembershipVerdict {
  return { kind: 'failed', error: new BroadcastStoppedError() };
}

function describeForeign(memberIds: string[]): string {
  return `member(s) ${memberIds.join(', ')} of another instance joined`;
}
