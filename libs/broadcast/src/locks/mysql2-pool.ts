import type { AdvisoryLockFactory } from '../interfaces/advisory-lock-factory.interface.js';
import type { DatabaseLockProviderOptions } from './connection-held-lock.js';
import type { LockSessionSource } from './lock-session.js';
import { poolSessions } from './pool-sessions.js';
import { MysqlAdvisoryLockProvider } from './mysql-advisory-lock.js';

/** The members of a `mysql2/promise` `PoolConnection` the locks use. */
export interface Mysql2PoolConnectionLike {
  query(sql: string, params?: unknown[]): Promise<unknown>;
  release(): void;
  /** The callback-style connection underneath: its events tell a lost session. */
  readonly connection: unknown;
}

/** The member of a `mysql2/promise` pool the locks use (`createPool({ ... })` from `mysql2/promise`). */
export interface Mysql2PoolLike {
  getConnection(): Promise<Mysql2PoolConnectionLike>;
}

/** Lends `mysql2/promise` pool connections in the shape of TypeORM query runners. */
export function mysql2PoolSessions(pool: Mysql2PoolLike): LockSessionSource {
  return poolSessions<Mysql2PoolConnectionLike>({
    type: 'mysql',
    name: 'mysql2',
    borrow: () => pool.getConnection(),
    rows: async (connection, sql, params) => {
      const [rows] = (await connection.query(sql, params)) as [unknown, unknown];
      return rows;
    },
    driverConnection: (connection) => connection.connection,
    giveBack: (connection) => connection.release(),
  });
}

/**
 * MySQL / MariaDB user locks on a plain `mysql2/promise` pool, without TypeORM: each held lock keeps
 * one pool connection for as long as it lives.
 * `BroadcastModule.forRoot({ lock: { provider: mysqlAdvisoryLocks(pool) }, ... })`.
 */
export function mysqlAdvisoryLocks(
  pool: Mysql2PoolLike,
  options: Omit<DatabaseLockProviderOptions, 'logger'> = {},
): AdvisoryLockFactory {
  return ({ namespace, logger }) =>
    new MysqlAdvisoryLockProvider(mysql2PoolSessions(pool), namespace, { ...options, logger });
}
