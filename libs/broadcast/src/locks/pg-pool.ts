import type { AdvisoryLockFactory } from '../interfaces/advisory-lock-factory.interface.js';
import type { DatabaseLockProviderOptions } from './connection-held-lock.js';
import type { LockSession, LockSessionSource } from './lock-session.js';
import { PostgresAdvisoryLockProvider } from './postgres-advisory-lock.js';

/** The members of a `pg` `PoolClient` the locks use. */
export interface PgPoolClientLike {
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  release(error?: Error | boolean): void;
}

/** The member of a `pg` `Pool` the locks use (`new Pool({ ... })` from the `pg` package). */
export interface PgPoolLike {
  connect(): Promise<PgPoolClientLike>;
}

/** Lends `pg` pool clients in the shape of TypeORM query runners, which is what the locks run on. */
export function pgPoolSessions(pool: PgPoolLike): LockSessionSource {
  return {
    options: { type: 'postgres' },
    createQueryRunner(): LockSession {
      let client: PgPoolClientLike | undefined;
      return {
        get databaseConnection() {
          return client;
        },
        async connect() {
          client = await pool.connect();
          return client;
        },
        async query(sql, params) {
          if (!client) throw new Error('pg lock session used before connect()');
          return (await client.query(sql, params)).rows;
        },
        async release() {
          client?.release();
          client = undefined;
        },
      };
    },
  };
}

/**
 * PostgreSQL advisory locks on a plain `pg` pool, without TypeORM: each held lock keeps one pool
 * client for as long as it lives, so size the pool for one more client per instance.
 * `BroadcastModule.forRoot({ lock: { provider: pgAdvisoryLocks(pool) }, ... })`.
 */
export function pgAdvisoryLocks(
  pool: PgPoolLike,
  options: Omit<DatabaseLockProviderOptions, 'logger'> = {},
): AdvisoryLockFactory {
  return ({ namespace, logger }) =>
    new PostgresAdvisoryLockProvider(pgPoolSessions(pool), namespace, { ...options, logger });
}
