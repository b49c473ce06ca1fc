import type { AdvisoryLockFactory } from '../interfaces/advisory-lock-factory.interface.js';
import type { DatabaseLockProviderOptions } from './connection-held-lock.js';
import type { LockSessionSource } from './lock-session.js';
import { poolSessions } from './pool-sessions.js';
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
  return poolSessions<PgPoolClientLike>({
    type: 'postgres',
    name: 'pg',
    borrow: () => pool.connect(),
    rows: async (client, sql, params) => (await client.query(sql, params)).rows,
    driverConnection: (client) => client,
    giveBack: (client) => client.release(),
  });
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
