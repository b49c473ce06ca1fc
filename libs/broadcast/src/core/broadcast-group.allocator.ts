import { BroadcastAllocationError } from '../errors/broadcast-allocation.error.js';
import { BroadcastMessages } from '../errors/broadcast.messages.js';
import type { AdvisoryLockProvider, HeldLock } from '../interfaces/advisory-lock.interface.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import type { KafkaAdminPort } from '../interfaces/kafka-port.interface.js';
import { backoffDelay, errorMessage, pause } from '../shared/async.utils.js';
import type { StepProbe } from './group-membership.js';
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
  /** @internal Built by BroadcastEngine; inject the instance (Nest) or read it from the engine. */
  constructor(
    private readonly settings: AllocatorSettings,
    private readonly locks: AdvisoryLockProvider,
    private readonly admin: KafkaAdminPort,
    private readonly logger: BroadcastLogger,
    /** Internal test hook: called as the lock and delete steps begin. */
    private readonly probe?: StepProbe,
  ) {}

  /** `<prefix><base>-<id>`, with the base of the current lock mode. */
  groupName(id: number): string {
    const { topicPrefix, lockedBase, lockFreeBase } = this.settings;
    return `${topicPrefix}${this.locks.mode === 'none' ? lockFreeBase : lockedBase}-${id}`;
  }

  /**
   * @internal Tries pass after pass over the pool until a group is claimed, the deadline passes or
   * `signal` aborts.
   */
  async allocate<T>(
    join: GroupJoiner<T>,
    deadline: number,
    signal: AbortSignal,
  ): Promise<GroupClaim<T>> {
    const started = Date.now();
    const refused = new Map<string, string>();
    for (let pass = 0; ; pass++) {
      for await (const candidate of this.candidates()) {
        if (signal.aborted || Date.now() >= deadline) {
          await candidate.lock?.release();
          if (signal.aborted) throw new Error(BroadcastMessages.stopped());
          throw new BroadcastAllocationError(toAttempts(refused), deadline - started);
        }
        const groupId = this.groupName(candidate.id);
        if (!candidate.lock) {
          refused.set(groupId, candidate.reason);
          continue;
        }
        const outcome = await this.claim(candidate.lock, groupId, join, deadline, signal);
        if ('claim' in outcome) return outcome.claim;
        refused.set(groupId, outcome.reason);
      }
      this.logger.warn(`${BroadcastMessages.poolExhausted(this.settings.maxGroups)} Trying again.`);
      await pause(
        Math.min(backoffDelay(pass, 500, 5_000), Math.max(0, deadline - Date.now())),
        signal,
      );
    }
  }

  /** One pass over the pool: each id with its lock, or why it could not be locked. */
  private async *candidates(): AsyncGenerator<Candidate> {
    this.probe?.('lock');
    const lowest = this.locks.mode === 'none' ? undefined : this.locks.tryLockLowest;
    if (lowest) return yield* this.lowestFreeIds(lowest.bind(this.locks));
    const strategy = createIdStrategy(
      this.locks.mode === 'none' ? 'random' : 'lowest-first',
      this.settings.maxGroups,
    );
    for (let id = strategy.next(); id !== undefined; id = strategy.next()) {
      try {
        const lock = await this.locks.tryLock(id);
        yield lock ? { id, lock } : { id, reason: LOCKED };
      } catch (error) {
        this.logger.warn(
          `Could not query the lock for ${this.groupName(id)}: ${errorMessage(error)}`,
        );
        yield { id, reason: `lock query failed: ${errorMessage(error)}` };
      }
    }
  }

  /** Lowest first, one round trip per claimed id instead of one per id tried. */
  private async *lowestFreeIds(
    lockLowest: (from: number, limit: number) => Promise<HeldLock | null>,
  ) {
    const limit = this.settings.maxGroups;
    for (let from = 0; from < limit;) {
      let lock: HeldLock | null;
      try {
        lock = await lockLowest(from, limit);
      } catch (error) {
        this.logger.warn(
          `Could not query the lock for ${this.groupName(from)}: ${errorMessage(error)}`,
        );
        yield {
          id: from,
          reason: `lock query failed: ${errorMessage(error)}`,
        } as Candidate;
        from++;
        continue;
      }
      const taken = lock ? lock.id : limit;
      for (let id = from; id < taken; id++) yield { id, reason: LOCKED } as Candidate;
      if (!lock) return;
      yield { id: lock.id, lock } as Candidate;
      from = lock.id + 1;
    }
  }

  /** Delete, join, verify; the lock is released unless the group is claimed. */
  private async claim<T>(
    lock: HeldLock,
    groupId: string,
    join: GroupJoiner<T>,
    deadline: number,
    signal: AbortSignal,
  ): Promise<{ claim: GroupClaim<T> } | { reason: string }> {
    try {
      this.probe?.('delete');
      const deleted = await this.admin.deleteGroup(groupId, deadline, signal);
      if (deleted === 'non-empty') {
        await lock.release();
        return { reason: 'group still has members' };
      }
      const joined = await join(groupId, deadline);
      if (!joined.accepted) {
        await lock.release();
        return { reason: joined.reason };
      }
      return { claim: { id: lock.id, groupId, lock, value: joined.value } };
    } catch (error) {
      await lock.release();
      return { reason: errorMessage(error) };
    }
  }
}

const LOCKED = 'locked by another instance';

type Candidate =
  | { id: number; lock: HeldLock; reason?: undefined }
  | { id: number; lock?: undefined; reason: string };

function toAttempts(refused: Map<string, string>) {
  return [...refused].map(([groupId, reason]) => ({ groupId, reason }));
}
