import type { LockSession, LockSessionSource } from './lock-session.js';
import type { HeldLock } from '../interfaces/advisory-lock.interface.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import {
  driverConnectionOf,
  firstRowValue,
  isTrue,
  releaseQuietly,
  type DriverConnection,
} from './query-runner-helpers.js';
import { errorMessage, withTimeout } from '../shared/async.utils.js';

export type { DriverConnection } from './query-runner-helpers.js';

/** Default bound on the lock-check and unlock statements. */
export const DEFAULT_LOCK_QUERY_TIMEOUT_MS = 5_000;

/** Options shared by the database-backed lock providers. */
export interface DatabaseLockProviderOptions {
  /** Receives debug messages about lost connections and failed unlocks. */
  readonly logger?: BroadcastLogger;
  /** Bound on each lock check and unlock statement; defaults to 5000 ms. */
  readonly queryTimeoutMs?: number;
}

/** The SQL a dedicated-connection lock runs; each statement returns one row. */
export interface DedicatedLockStatements {
  /** Takes the lock without waiting; the row has a `locked` column. */
  readonly lockSql: string;
  readonly lockParams: readonly unknown[];
  /** Checks that this connection still holds the lock; the row has a `held` column. */
  readonly checkSql: string;
  readonly checkParams: readonly unknown[];
  readonly unlockSql: string;
  readonly unlockParams: readonly unknown[];
}

/** Driver-specific behaviour of a dedicated-connection lock. */
export interface DedicatedLockOptions {
  /** Bounds isHeld() and the unlock, so a half-open connection cannot hang the caller. */
  readonly queryTimeoutMs: number;
  /** Closes the driver connection instead of returning it to the pool. */
  readonly discard: (connection: DriverConnection) => void;
  /** Names the lock in debug logs. */
  readonly description: string;
  readonly logger?: BroadcastLogger;
}

// A lock held by a session on its own QueryRunner: the lock lives exactly as long as that session.
class ConnectionHeldLock implements HeldLock {
  readonly #connection: DriverConnection | undefined;
  #lost = false;
  #releasing: Promise<void> | undefined;

  constructor(
    readonly id: number,
    private readonly queryRunner: LockSession,
    private readonly statements: DedicatedLockStatements,
    private readonly options: DedicatedLockOptions,
  ) {
    this.#connection = driverConnectionOf(queryRunner);
    // An 'error' event without a listener crashes Node. mysql2 pool connections only carry a `once`
    // listener, so a second error on a killed connection would be fatal; this listener outlives it.
    this.#connection?.on('error', this.#onConnectionLost);
    this.#connection?.on('end', this.#onConnectionLost);
  }

  async isHeld(): Promise<boolean> {
    if (this.#releasing || this.#lost) return false;
    try {
      const rows = await withTimeout(
        this.queryRunner.query(this.statements.checkSql, [...this.statements.checkParams]),
        this.options.queryTimeoutMs,
        'lock check',
      );
      return !this.#lost && isTrue(firstRowValue(rows, 'held'));
    } catch {
      return false;
    }
  }

  release(): Promise<void> {
    this.#releasing ??= this.#release();
    return this.#releasing;
  }

  readonly #onConnectionLost = (error?: unknown): void => {
    if (this.#lost) return;
    this.#lost = true;
    const reason = error instanceof Error ? `: ${error.message}` : '';
    this.options.logger?.debug?.(`${this.options.description}: connection lost${reason}`);
  };

  async #release(): Promise<void> {
    const unlocked = !this.#lost && (await this.#unlock());
    if (unlocked && !this.#lost) {
      this.#detach();
    } else if (this.#connection) {
      // The session may still hold the lock (unlock failed or timed out): never hand it back to the pool.
      // Our listener stays attached because a dying connection can still emit late errors.
      this.options.discard(this.#connection);
    }
    await releaseQuietly(this.queryRunner);
  }

  async #unlock(): Promise<boolean> {
    try {
      await withTimeout(
        this.queryRunner.query(this.statements.unlockSql, [...this.statements.unlockParams]),
        this.options.queryTimeoutMs,
        'unlock',
      );
      return true;
    } catch (error) {
      const message = errorMessage(error);
      this.options.logger?.debug?.(`${this.options.description}: unlock failed: ${message}`);
      return false;
    }
  }

  #detach(): void {
    this.#connection?.removeListener('error', this.#onConnectionLost);
    this.#connection?.removeListener('end', this.#onConnectionLost);
  }
}

/**
 * Connects `queryRunner` within `timeoutMs`: an exhausted application pool must not stall the
 * allocation (and stop() behind it). A connection that arrives after the timeout goes back at once.
 */
async function connectWithin(queryRunner: LockSession, timeoutMs: number): Promise<void> {
  const connecting = queryRunner.connect();
  try {
    await withTimeout(connecting, timeoutMs, 'connecting for the lock');
  } catch (error) {
    void connecting.then(
      () => releaseQuietly(queryRunner),
      () => undefined,
    );
    throw error;
  }
}

/**
 * Connects and runs a lock statement, bounded by `options.queryTimeoutMs`. If the statement fails
 * or times out, the server may still have taken the lock, and a session advisory lock survives
 * statement errors: that connection is destroyed, never handed back to the pool.
 */
async function runLockStatement(
  queryRunner: LockSession,
  sql: string,
  params: readonly unknown[],
  options: Pick<DedicatedLockOptions, 'queryTimeoutMs' | 'discard'>,
): Promise<unknown> {
  await connectWithin(queryRunner, options.queryTimeoutMs);
  try {
    return await withTimeout(
      queryRunner.query(sql, [...params]),
      options.queryTimeoutMs,
      'lock statement',
    );
  } catch (error) {
    const connection = driverConnectionOf(queryRunner);
    if (connection) {
      // The killed session may still emit errors; an 'error' event without a listener is fatal.
      connection.on('error', () => undefined);
      options.discard(connection);
    }
    await releaseQuietly(queryRunner);
    throw error;
  }
}

/**
 * Opens a dedicated connection and tries the lock once. Resolves the held lock, or `null` (connection
 * returned) when another session holds it. Rejects on database errors; a connection whose lock
 * statement failed is destroyed rather than returned.
 */
export async function tryLockOnDedicatedConnection(
  dataSource: LockSessionSource,
  id: number,
  statements: DedicatedLockStatements,
  options: DedicatedLockOptions,
): Promise<HeldLock | null> {
  const queryRunner = dataSource.createQueryRunner();
  const rows = await runLockStatement(
    queryRunner,
    statements.lockSql,
    statements.lockParams,
    options,
  );
  const locked = firstRowValue(rows, 'locked');
  if (locked === null || locked === undefined) {
    await releaseQuietly(queryRunner);
    throw new Error(`${options.description}: lock statement returned no result`);
  }
  if (!isTrue(locked)) {
    await releaseQuietly(queryRunner);
    return null;
  }
  return new ConnectionHeldLock(id, queryRunner, statements, options);
}

/**
 * Like tryLockOnDedicatedConnection, for a statement that picks the id itself: its row has an `id`
 * column (no row when nothing could be locked), and the lock's statements follow from that id.
 */
export async function tryLockChosenIdOnDedicatedConnection(
  dataSource: LockSessionSource,
  lockSql: string,
  lockParams: readonly unknown[],
  statementsFor: (id: number) => DedicatedLockStatements,
  optionsFor: (id: number) => DedicatedLockOptions,
): Promise<HeldLock | null> {
  const queryRunner = dataSource.createQueryRunner();
  // Timeout and discard do not depend on the id, which is not known yet.
  const rows = await runLockStatement(queryRunner, lockSql, lockParams, optionsFor(-1));
  const chosen = firstRowValue(rows, 'id');
  if (chosen === null || chosen === undefined) {
    await releaseQuietly(queryRunner);
    return null;
  }
  const id = Number(chosen);
  return new ConnectionHeldLock(id, queryRunner, statementsFor(id), optionsFor(id));
}
