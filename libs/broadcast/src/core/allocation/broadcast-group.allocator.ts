import { BroadcastAllocationError } from '../../errors/broadcast-allocation.error.js';
import { BroadcastMessages } from '../../errors/broadcast.messages.js';
import { BroadcastStoppedError } from '../../errors/broadcast-stopped.error.js';
import { isBroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import type { AdvisoryLockProvider, HeldLock } from '../../interfaces/advisory-lock.interface.js';
import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import type { KafkaAdminPort } from '../../interfaces/kafka-port.interface.js';
import { backoffDelay, errorMessage, pause } from '../../shared/async.utils.js';
import type { StepProbe } from '../step-probe.js';
import { createIdStrategy, type IdStrategy } from './id-strategy.js';
import { FreeGroup } from './free-group.js';
import { LockDatabaseFailures } from './lock-database-failures.js';

export { FreeGroup } from './free-group.js';
import { occupiedPoolIds, spreadIds, type SpreadId } from './pool-occupancy.js';

/**
 * Whether the broker itself refuses a second member that joins `groupId` with the group's static
 * instance id while another holds it (KIP-848: UNRELEASED_INSTANCE_ID); false when unknown.
 */
export type BrokerEnforcedClaim = (groupId: string) => Promise<boolean>;

export interface AllocatorSettings {
  topicPrefix: string;
  /** Group base names per mode, so locked and lock-free instances never share a group. */
  lockedBase: string;
  lockFreeBase: string;
  maxGroups: number;
}

/**
 * Finds free broadcast groups: lock the id, delete the group so it starts fresh, offer it.
 * Joining and verifying it is the reader's (see ReaderAllocation); this only allocates. Lock
 * mode walks ids lowest first (a probe is one cheap query, and the pool stays as small as the
 * peak number of instances); lock-free mode draws at random over the whole pool,
 * the ids a listing saw without members first (see spreadIds), because there a collision costs a
 * join. Lock-free where the broker enforces the claim (`brokerClaim`, KIP-848), an id the listing
 * just saw without members is offered without the delete: the join itself is the claim (a held
 * id is refused in its one round trip), and the delete would only have added a round trip (and a
 * coordinator lookup) to every draw of a mass start. An id the listing saw taken keeps it, as the
 * cheap refusal of the common case.
 */
export class BroadcastGroupAllocator {
  /** True while the latest full pass over the pool found no id to claim; a claim clears it. */
  exhausted = false;
  /** Full passes that found no id to claim, since the engine was built (a counter for metrics). */
  exhaustions = 0;

  /** @internal Built by BroadcastEngine; inject the instance (Nest) or read it from the engine. */
  constructor(
    private readonly settings: AllocatorSettings,
    private readonly locks: AdvisoryLockProvider,
    private readonly admin: KafkaAdminPort,
    private readonly logger: BroadcastLogger,
    /** Internal test hook: called as the lock and delete steps begin. */
    private readonly probe?: StepProbe,
    /** Whether the broker refuses a second claimant by instance id; never, when omitted. */
    private readonly brokerClaim?: BrokerEnforcedClaim,
  ) {}

  /** The pool's base name in the current lock mode: what targeting calls the service. */
  get base(): string {
    const { lockedBase, lockFreeBase } = this.settings;
    return this.locks.mode === 'none' ? lockFreeBase : lockedBase;
  }

  /** `<prefix><base>-<id>`, with the base of the current lock mode. */
  groupName(id: number): string {
    return `${this.poolPrefix}${id}`;
  }

  /** `<prefix><base>-`: what every group of the pool's name starts with. */
  private get poolPrefix(): string {
    return `${this.settings.topicPrefix}${this.base}-`;
  }

  /**
   * @internal Offers free groups, pass after pass over the pool, until one is kept, the deadline
   * passes or `signal` aborts (then it throws). `budgetMs` is the start-up budget the deadline
   * was set from, named in the error: the caller may set the deadline before other start-up
   * steps, so the time left here can be less than the budget, or already gone (never reported as
   * a negative time).
   */
  async *freeGroups(
    deadline: number,
    signal: AbortSignal,
    budgetMs?: number,
  ): AsyncGenerator<FreeGroup, never, undefined> {
    const started = Date.now();
    const budget = Math.max(0, budgetMs ?? deadline - started);
    const refused = new Map<string, string>();
    const lockDb = new LockDatabaseFailures(this.logger, started);
    for (let pass = 0; ; pass++) {
      for await (const candidate of this.candidates(signal)) {
        if (signal.aborted || Date.now() >= deadline) {
          await candidate.lock?.release();
          if (signal.aborted) throw new BroadcastStoppedError();
          if (lockDb.failing) throw lockDb.error();
          throw new BroadcastAllocationError(
            toAttempts(refused),
            budget,
            this.exhausted ? this.settings.maxGroups : undefined,
          );
        }
        const groupId = this.groupName(candidate.id);
        // An unreachable lock database fails every id alike: end the pass, retry, report once.
        if (candidate.lockFailure !== undefined) {
          lockDb.failed(candidate.lockFailure);
          break;
        }
        lockDb.answered();
        if (!candidate.lock) {
          refused.set(groupId, candidate.reason);
          continue;
        }
        // The step of the claim before the join: the delete, or (lock-free under KIP-848) its skip.
        this.probe?.('delete');
        const refusal = (await this.joinIsClaim(candidate, groupId))
          ? undefined
          : await this.emptied(candidate.lock, groupId, deadline, signal);
        if (refusal !== undefined) {
          refused.set(groupId, refusal);
          continue;
        }
        // Stopped meanwhile (a skipped delete has no request the stop could end): offer nothing.
        if (signal.aborted) {
          await candidate.lock.release();
          throw new BroadcastStoppedError();
        }
        const group = new FreeGroup(candidate.id, groupId, candidate.lock);
        try {
          yield group;
        } finally {
          // Kept: the caller returned with it. Otherwise the lock goes back, whatever happened.
          if (group.kept) this.exhausted = false;
          else await candidate.lock.release();
        }
        refused.set(groupId, group.refusal);
      }
      // The walk ends early without a lock once stopped: not a pass that found the pool full.
      if (signal.aborted) throw new BroadcastStoppedError();
      if (!lockDb.failing) {
        this.exhausted = true;
        this.exhaustions++;
        if (pass === 0)
          this.logger.warn(
            `${BroadcastMessages.poolExhausted(this.settings.maxGroups)} Retrying.`,
            {
              reason: 'pool exhausted',
              maxGroups: this.settings.maxGroups,
            },
          );
      }
      // A lock-mode pass is one cheap statement, so it retries sooner; a lock-free pass costs
      // a listing and a delete per id. The first id freed is found at the next pass.
      const capMs = this.locks.mode === 'none' ? 5_000 : 2_000;
      await pause(
        Math.min(backoffDelay(pass, 250, capMs), Math.max(0, deadline - Date.now())),
        signal,
      );
    }
  }

  /**
   * One pass over the pool: each id with its lock, or why it could not be locked. Takes no lock
   * once `signal` aborted (stop() must not cost a lock round trip, nor hold an id meanwhile).
   */
  private async *candidates(signal: AbortSignal): AsyncGenerator<Candidate> {
    if (signal.aborted) return;
    this.probe?.('lock');
    const lowest = this.locks.mode === 'none' ? undefined : this.locks.tryLockLowest;
    if (lowest) return yield* this.lowestFreeIds(lowest.bind(this.locks), signal);
    const { maxGroups } = this.settings;
    const ids =
      this.locks.mode === 'none'
        ? spreadIds(maxGroups, () =>
            occupiedPoolIds(this.admin, this.poolPrefix, this.logger, signal),
          )
        : idsOf(createIdStrategy('lowest-first', maxGroups));
    for await (const { id, listedFree } of ids) {
      if (signal.aborted) return;
      try {
        const lock = await this.locks.tryLock(id);
        yield lock ? { id, lock, listedFree } : { id, reason: LOCKED };
      } catch (error) {
        yield lockFailure(id, error);
        return;
      }
    }
  }

  /** Lowest first, one round trip per claimed id instead of one per id tried. */
  private async *lowestFreeIds(
    lockLowest: (from: number, limit: number) => Promise<HeldLock | null>,
    signal: AbortSignal,
  ): AsyncGenerator<Candidate> {
    const limit = this.settings.maxGroups;
    for (let from = 0; from < limit && !signal.aborted;) {
      let lock: HeldLock | null;
      try {
        lock = await lockLowest(from, limit);
      } catch (error) {
        yield lockFailure(from, error);
        return;
      }
      const taken = lock ? lock.id : limit;
      for (let id = from; id < taken; id++) yield { id, reason: LOCKED } as Candidate;
      if (!lock) return;
      yield { id: lock.id, lock } as Candidate;
      from = lock.id + 1;
    }
  }

  /**
   * Lock-free, an id the listing just saw without members, where the broker refuses a second
   * claimant by instance id: the join is offered without the delete (see the class). A failed
   * answer counts as no (the delete stays).
   */
  private async joinIsClaim(candidate: Candidate, groupId: string): Promise<boolean> {
    if (this.locks.mode !== 'none' || !candidate.listedFree || !this.brokerClaim) return false;
    return this.brokerClaim(groupId).catch(() => false);
  }

  /** Deletes the group so that it starts empty; a refusal (lock released) or undefined. */
  private async emptied(
    lock: HeldLock,
    groupId: string,
    deadline: number,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    try {
      const deleted = await this.admin.deleteGroup(groupId, deadline, signal);
      if (deleted !== 'non-empty') return undefined;
      await lock.release();
      return 'group still has members';
    } catch (error) {
      await lock.release();
      // Failures retrying cannot fix (see BroadcastStartupError) would fail every id alike.
      if (isBroadcastStartupError(error)) throw error;
      return errorMessage(error);
    }
  }
}

const LOCKED = 'locked by another instance';

function* idsOf(strategy: IdStrategy): Generator<SpreadId> {
  for (let id = strategy.next(); id !== undefined; id = strategy.next())
    yield { id, listedFree: false };
}

type Candidate =
  | {
      id: number;
      lock: HeldLock;
      reason?: undefined;
      lockFailure?: undefined;
      /** Lock-free: the listing just taken saw the group without members. */
      listedFree?: boolean;
    }
  | { id: number; lock?: undefined; reason: string; lockFailure?: string; listedFree?: undefined };

function lockFailure(id: number, error: unknown): Candidate {
  const message = errorMessage(error);
  return { id, reason: `lock query failed: ${message}`, lockFailure: message };
}

function toAttempts(refused: Map<string, string>) {
  return [...refused].map(([groupId, reason]) => ({ groupId, reason }));
}
