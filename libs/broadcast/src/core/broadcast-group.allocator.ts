import { BroadcastAllocationError } from '../errors/broadcast-allocation.error.js';
import { BroadcastMessages } from '../errors/broadcast.messages.js';
import type { AdvisoryLockProvider, HeldLock } from '../interfaces/advisory-lock.interface.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import type { KafkaAdminPort } from '../interfaces/kafka-port.interface.js';
import { backoffDelay, errorMessage, pause } from './async.utils.js';
import { createIdStrategy } from './id-strategy.js';

export interface AllocatorSettings {
  topicPrefix: string;
  /** Group base names per mode, so locked and lock-free instances never share a group. */
  lockedBase: string;
  lockFreeBase: string;
  maxGroups: number;
}

/** Joins a candidate group; resolves `accepted` only when the group is exclusively ours. */
export type GroupJoiner<T> = (
  groupId: string,
  deadline: number,
) => Promise<{ accepted: true; value: T } | { accepted: false; reason: string }>;

/** A group this instance holds: its lock and whatever the joiner produced. */
export interface GroupClaim<T> {
  id: number;
  groupId: string;
  lock: HeldLock;
  value: T;
}

/**
 * Finds a free broadcast group: lock the id, delete the group so it starts fresh, join,
 * verify. Lock mode walks ids lowest first (a probe is one cheap query, and the pool stays
 * as small as the peak number of instances); lock-free mode draws at random from a growing
 * pool, because there every probe costs a delete and a join.
 */
export class BroadcastGroupAllocator {
  constructor(
    private readonly settings: AllocatorSettings,
    private readonly locks: AdvisoryLockProvider,
    private readonly admin: KafkaAdminPort,
    private readonly logger: BroadcastLogger,
  ) {}

  /** `<prefix><base>-<id>`, with the base of the current lock mode. */
  groupName(id: number): string {
    const { topicPrefix, lockedBase, lockFreeBase } = this.settings;
    return `${topicPrefix}${this.locks.mode === 'none' ? lockFreeBase : lockedBase}-${id}`;
  }

  /** Tries pass after pass over the pool until a group is claimed, the deadline passes or `signal` aborts. */
  async allocate<T>(join: GroupJoiner<T>, deadline: number, signal: AbortSignal): Promise<GroupClaim<T>> {
    const started = Date.now();
    const refused = new Map<string, string>();
    for (let pass = 0; ; pass++) {
      const strategy = createIdStrategy(this.locks.mode === 'none' ? 'random' : 'lowest-first', this.settings.maxGroups);
      for (let id = strategy.next(); id !== undefined; id = strategy.next()) {
        if (signal.aborted) throw new Error(BroadcastMessages.stopped());
        if (Date.now() >= deadline) throw new BroadcastAllocationError(toAttempts(refused), deadline - started);
        const outcome = await this.tryId(id, join, deadline);
        if ('claim' in outcome) return outcome.claim;
        refused.set(this.groupName(id), outcome.reason);
      }
      this.logger.warn(`${BroadcastMessages.poolExhausted(this.settings.maxGroups)} Trying again.`);
      await pause(Math.min(backoffDelay(pass, 500, 5_000), Math.max(0, deadline - Date.now())), signal);
    }
  }

  private async tryId<T>(
    id: number,
    join: GroupJoiner<T>,
    deadline: number,
  ): Promise<{ claim: GroupClaim<T> } | { reason: string }> {
    const groupId = this.groupName(id);
    let lock: HeldLock | null;
    try {
      lock = await this.locks.tryLock(id);
    } catch (error) {
      this.logger.warn(`Could not query the lock for ${groupId}: ${errorMessage(error)}`);
      return { reason: `lock query failed: ${errorMessage(error)}` };
    }
    if (!lock) return { reason: 'locked by another instance' };
    try {
      const deleted = await this.admin.deleteGroup(groupId, deadline);
      if (deleted === 'non-empty') {
        await lock.release();
        return { reason: 'group still has members' };
      }
      const joined = await join(groupId, deadline);
      if (!joined.accepted) {
        await lock.release();
        return { reason: joined.reason };
      }
      return { claim: { id, groupId, lock, value: joined.value } };
    } catch (error) {
      await lock.release();
      return { reason: errorMessage(error) };
    }
  }
}

function toAttempts(refused: Map<string, string>) {
  return [...refused].map(([groupId, reason]) => ({ groupId, reason }));
}
