import { BroadcastStoppedError } from '../../errors/broadcast-stopped.error.js';
import { isBroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import { backoffDelay, errorMessage, pause } from '../../shared/async.utils.js';
import type { FreeGroup } from '../allocation/broadcast-group.allocator.js';
import type { Claim, ReaderDeps, ReaderSettings } from './broadcast-reader.types.js';
import type { GroupJoins, Tried } from './group-joins.js';

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
    private readonly topics: () => string[],
    /** The reader's stop signal. */
    private readonly signal: AbortSignal,
  ) {}

  /** One attempt: creates missing topics, then claims a group before `deadline`. */
  async once(deadline: number): Promise<Claim> {
    this.deps.probe?.('allocate');
    await this.deps.kafka.admin.ensureTopics(this.topics(), this.signal);
    // The topic check returns at once when stopped: take no lock then.
    if (this.signal.aborted) throw new BroadcastStoppedError();
    const { allocator } = this.deps;
    const budget = this.settings.startupTimeoutMs;
    for await (const group of allocator.freeGroups(deadline, this.signal, budget)) {
      const tried = await this.tryGroup(group, deadline);
      if (!tried.accepted) {
        group.refuse(tried.reason);
        continue;
      }
      group.keep();
      const { id, groupId, lock } = group;
      const { membership, ownMemberIds } = tried;
      return { id, groupId, lock, membership, ownMemberIds, lockLost: new AbortController() };
    }
    // freeGroups ends only by throwing (stopped, deadline, lock database).
    throw new BroadcastStoppedError();
  }

  /** Joins a free group; a failure is a refusal, unless retrying cannot fix it (it throws). */
  private async tryGroup(group: FreeGroup, deadline: number): Promise<Tried> {
    try {
      return await this.joins.tryGroup(group.groupId, deadline);
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
        await pause(backoffDelay(attempt, 1_000, 10_000), this.signal);
      }
    }
  }
}
