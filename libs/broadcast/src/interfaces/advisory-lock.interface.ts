/** How broadcast group ids are protected: a database advisory lock, or nothing. */
export type LockMode = 'postgres' | 'mysql' | 'none';

/** One advisory lock held on its own dedicated database connection. */
export interface HeldLock {
  readonly id: number;
  /**
   * True while the dedicated connection is alive and still holds this lock.
   * Never throws: a broken connection reads as `false`.
   */
  isHeld(): Promise<boolean>;
  /** Releases exactly this lock and returns the connection. Idempotent, never throws. */
  release(): Promise<void>;
}

/** Takes advisory locks for broadcast group ids. */
export interface AdvisoryLockProvider {
  readonly mode: LockMode;
  /**
   * Tries once, without waiting. Resolves `null` when another session holds the id.
   * Rejects on database errors (the caller logs and moves to the next id).
   */
  tryLock(id: number): Promise<HeldLock | null>;
  /**
   * Optional: locks the lowest free id in `[from, limit)` in one round trip, or resolves `null`
   * when every id there is held. Lets many instances starting together find their ids without
   * walking the pool one query at a time.
   */
  tryLockLowest?(from: number, limit: number): Promise<HeldLock | null>;
}
