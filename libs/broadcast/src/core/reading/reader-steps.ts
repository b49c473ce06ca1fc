import { pause } from '../../shared/async.utils.js';
import type { ReaderDeps, ReaderHost, ReaderPhase } from './broadcast-reader.types.js';
import type { GroupJoins } from './group-joins.js';
import { deleteLeftGroup } from './left-group.js';
import type { ReaderAllocation } from './reader-allocation.js';

type Phase<N extends ReaderPhase['name']> = Extract<ReaderPhase, { name: N }>;

/**
 * The reader's slow steps, run one at a time on its transition chain: a rejoin attempt, a move
 * away, the stop's release. A step decides nothing: it does the I/O its phase asked for, hands
 * each outcome to `on()`, and ends as soon as it finds the phase changed under it (a lock lost
 * during a rejoin, a stop during a move). Each wait is bounded (a pause by its length, a leave
 * by LEAVE_MS, a lock call by the lock's query timeout, a delete by LEFT_GROUP_DELETE_MS).
 */
export class ReaderSteps {
  constructor(
    private readonly deps: ReaderDeps,
    private readonly joins: GroupJoins,
    private readonly allocation: ReaderAllocation,
    private readonly host: ReaderHost,
  ) {}

  /**
   * One rejoin attempt, after `pauseMs`: the crashed membership stopped, the lock checked, a new
   * membership made; its verdict comes to `on()` through that membership's channel.
   */
  async rejoin(phase: Phase<'rejoining'>, pauseMs: number): Promise<void> {
    if (this.host.phase() !== phase) return;
    this.deps.probe?.('rejoin');
    await pause(pauseMs, phase.wake.signal);
    const { claim } = phase;
    await claim.membership.stop();
    if (this.host.phase() !== phase) return;
    if (!(await claim.lock.isHeld())) return this.host.on({ kind: 'lock-lost', lock: claim.lock });
    if (this.host.phase() !== phase) return;
    const membership = this.joins.membership(claim.groupId, claim.ownMemberIds);
    this.host.on({ kind: 'rejoin-attempt', claim: { ...claim, membership } });
  }

  /** Leaves the group first, then unlocks it, then allocates another until one is ours or stopped. */
  async moveAway(phase: Phase<'moving'>): Promise<void> {
    if (this.host.phase() !== phase) return;
    this.deps.probe?.('recover');
    await phase.claim.membership.stop();
    await phase.claim.lock.release();
    if (this.host.phase() !== phase) return;
    this.host.on({ kind: 'left' });
    await this.allocation.untilStopped((claim) => this.host.on({ kind: 'claimed', claim }));
  }

  /**
   * The stop's last step, once every earlier one ended: leave the group, delete it while its
   * lock is still ours (never one given up, see left-group.ts), unlock it.
   */
  async release(): Promise<void> {
    const phase = this.host.phase();
    if (phase.name !== 'stopping' || !phase.claim) return;
    const { claim } = phase;
    await claim.membership.stop();
    if (phase.deleteGroup && (await claim.lock.isHeld()))
      await deleteLeftGroup(this.deps.kafka.admin, claim.groupId, this.deps.logger);
    await claim.lock.release();
  }
}
