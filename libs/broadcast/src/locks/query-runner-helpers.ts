import type { LockSession } from './lock-session.js';

/** The driver's own connection behind a TypeORM LockSession: a pg `Client` or a mysql2 `PoolConnection`. */
export interface DriverConnection {
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  removeListener(event: string, listener: (...args: unknown[]) => void): unknown;
}

/** The driver connection behind a connected LockSession, if it is an event emitter. */
export function driverConnectionOf(queryRunner: LockSession): DriverConnection | undefined {
  const connection = (queryRunner as { databaseConnection?: unknown }).databaseConnection;
  const candidate = connection as Partial<DriverConnection> | undefined;
  return typeof candidate?.on === 'function' && typeof candidate.removeListener === 'function'
    ? (candidate as DriverConnection)
    : undefined;
}

/** Truthiness of a SQL boolean: pg answers booleans, mysql2 answers 1/0 (or NULL). */
export function isTrue(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 1n;
}

/** A column of the first row of a raw query result. */
export function firstRowValue(rows: unknown, column: string): unknown {
  const row = Array.isArray(rows) ? (rows[0] as Record<string, unknown> | undefined) : undefined;
  return row?.[column];
}

/** Releases a LockSession, ignoring errors from one that is already broken or released. */
export async function releaseQuietly(queryRunner: LockSession): Promise<void> {
  try {
    await queryRunner.release();
  } catch {
    // Releasing an already broken or released runner has nothing left to clean up.
  }
}
