import { BroadcastStoppedError } from '../../errors/broadcast-stopped.error.js';
import { isBroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import { backoffDelay, errorMessage, pause } from '../../shared/async.utils.js';
import type { FreeGroup } from '../allocation/broadcast-group.allocator.js';
import type { Claim, ReaderDeps, ReaderHost, ReaderSettings } from './broadcast-reader.types.js';
import { describeRefusal, type GroupJoins } from './group-joins.js';
import type { GroupMembership, MembershipVerdict } from './group-membership.js';

/** A candidate group joined and verified this instance's alone, or why not. */
type Tried =
  | { accepted: true; membership: GroupMembership; ownMemberIds: Set<string> }
  | { accepted: false; reason: string };

/**
 * How the reader gets a group: the topic check, then the pool's free groups (the allocator locks
 * and empties each) joined one by one until one is verified ours, within the start-up budget;
 * after a failed start-up or a given-up group, the same again with a growing pause until
 * stopped. Kept apart from BroadcastReader, which only adopts the claim and keeps it; the
 * reader's transition chain still runs every call, one at a time.
 */
export class ReaderAllocation {
  constructor(
    private readonly settings: ReaderSettings,
    private readonly deps: ReaderDeps,
    private readonly joins: GroupJoins,
    /** The reader: every step of the allocation goes to its `on()`. */
    private readonly host: ReaderHost,
    private readonly topics: () => string[],
    /** The reader's stop signal. */
    private readonly signal: AbortSignal,
  ) {}

  /** One attempt: creates missing topics, then claims a group before `deadline`. */
  async once(deadline: number): Promise<Claim> {
    this.deps.probe?.('allocate');
    this.host.on({ kind: 'allocating' });
    await this.ensureTopics(deadline);
    const { allocator } = this.deps;
    const budget = this.settings.startupTimeoutMs;
    for await (const group of allocator.freeGroups(deadline, this.signal, budget)) {
      const tried = await this.tryGroup(group, deadline);
      if (!tried.accepted) {
        // Debug: a lock-free fleet starting at once refuses many (a broker refusal included).
        this.deps.logger.debug?.(`Broadcast group ${group.groupId} refused: ${tried.reason}`, {
          group: group.groupId,
          reason: tried.reason,
        });
        group.refuse(tried.reason);
        this.host.on({ kind: 'allocating' });
        continue;
      }
      group.keep();
      const { id, groupId, lock } = group;
      const { membership, ownMemberIds } = tried;
      return { id, groupId, lock, membership, ownMemberIds };
    }
    // freeGroups ends only by throwing (stopped, deadline, lock database).
    throw new BroadcastStoppedError();
  }

  /**
   * The topic check, bounded by `deadline`: a broker that takes the requests and never answers
   * must not hold the allocation (an adapter waits for leaders until its signal aborts).
   */
  private async ensureTopics(deadline: number): Promise<void> {
    const budget = Math.max(1, deadline - Date.now());
    const timeout = new AbortController();
    // Unref'd like every wait of the engine: the engine itself holds the process while it runs.
    const timer = setTimeout(() => timeout.abort(), budget).unref();
    let failure: unknown;
    try {
      const signal = AbortSignal.any([this.signal, timeout.signal]);
      await this.deps.kafka.admin.ensureTopics(this.topics(), signal);
    } catch (error) {
      failure = error;
    } finally {
      clearTimeout(timer);
    }
    // The topic check returns at once when stopped: take no lock then.
    if (this.signal.aborted) throw new BroadcastStoppedError();
    // An unreachable broker is named by the adapter (kafka.brokers), whichever deadline came first.
    if (isBroadcastStartupError(failure)) throw failure;
    if (timeout.signal.aborted) {
      const { startupTimeoutMs } = this.settings;
      throw new Error(
        `the topic check did not complete before the start-up deadline (startupTimeoutMs ${startupTimeoutMs} ms)`,
      );
    }
    if (failure !== undefined) throw failure;
  }

  /** Joins a free group; a failure is a refusal, unless retrying cannot fix it (it throws). */
  private async tryGroup(group: FreeGroup, deadline: number): Promise<Tried> {
    try {
      await this.joins.snapshot();
      // One set for the whole claim: the rejoin after a crash must know the earlier members.
      const ownMemberIds = new Set<string>();
      const membership = this.joins.membership(group.groupId, ownMemberIds);
      const timeoutMs = Math.max(1, Math.min(this.settings.joinTimeoutMs, deadline - Date.now()));
      // The reader's on() starts it, and hands its first verdict over here.
      const verdict = await new Promise<MembershipVerdict>((verdict) =>
        this.host.on({ kind: 'candidate', membership, timeoutMs, verdict }),
      );
      if (verdict.kind === 'ready') return { accepted: true, membership, ownMemberIds };
      await membership.stop();
      // A missing ACL or a refused login fails every group alike: stop instead of walking the pool.
      if (verdict.kind === 'failed' && isBroadcastStartupError(verdict.error)) throw verdict.error;
      return { accepted: false, reason: describeRefusal(verdict) };
    } catch (error) {
      if (isBroadcastStartupError(error)) throw error;
      return { accepted: false, reason: errorMessage(error) };
    }
  }

  /** Attempts until one claim is adopted or the reader stops; each failure is logged. */
  async untilStopped(adopt: (claim: Claim) => void): Promise<void> {
    for (let attempt = 0; !this.signal.aborted; attempt++) {
      try {
        return adopt(await this.once(Date.now() + this.settings.startupTimeoutMs));
      } catch (error) {
        if (this.signal.aborted) return;
        this.deps.logger.error(
          `Could not allocate a new broadcast group: ${errorMessage(error)}`,
          undefined,
          { reason: errorMessage(error) },
        );
        this.host.on({ kind: 'allocating' });
        await pause(backoffDelay(attempt, 1_000, 10_000), this.signal);
      }
    }
  }
}
