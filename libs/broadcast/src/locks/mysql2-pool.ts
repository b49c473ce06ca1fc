import type { AdvisoryLockFactory } from '../interfaces/advisory-lock-factory.interface.js';
import type { DatabaseLockProviderOptions } from './connection-held-lock.js';
import type { LockSession, LockSessionSource } from './lock-session.js';
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
  return {
    options: { type: 'mysql' },
    createQueryRunner(): LockSession {
      let connection: Mysql2PoolConnectionLike | undefined;
      return {
        get databaseConnection() {
          return connection?.connection;
        },
        async connect() {
          connection = await pool.getConnection();
          return connection;
        },
        async query(sql, params) {
          if (!connection) throw new Error('mysql2 lock session used before connect()');
          const [rows] = (await connection.query(sql, params)) as [unknown, unknown];
          return rows;
        },
        async release() {
          connection?.release();
          connection = undefined;
        },
      };
    },
  };
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
