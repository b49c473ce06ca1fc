import type { LockSession, LockSessionSource } from './lock-session.js';

/** How the locks borrow, use and give back one connection of a driver's pool. */
export interface PoolDriver<C> {
  /** The DataSource type the lock providers check ('postgres', 'mysql'). */
  type: string;
  /** Names the driver in the error for a statement run before connect(). */
  name: string;
  borrow(): Promise<C>;
  /** Runs one statement and resolves its rows. */
  rows(connection: C, sql: string, params?: unknown[]): Promise<unknown>;
  /** The driver's own connection, whose events tell that the session was lost. */
  driverConnection(connection: C): unknown;
  giveBack(connection: C): void;
}

/**
 * Lends a driver pool's connections in the shape of TypeORM query runners, which is what the
 * locks run on: each session borrows one connection at connect() and gives it back at release().
 */
export function poolSessions<C>(driver: PoolDriver<C>): LockSessionSource {
  return {
    options: { type: driver.type },
    createQueryRunner(): LockSession {
      let connection: C | undefined;
      return {
        get databaseConnection() {
          return connection === undefined ? undefined : driver.driverConnection(connection);
        },
        async connect() {
          connection = await driver.borrow();
          return connection;
        },
        async query(sql, params) {
          if (!connection) throw new Error(`${driver.name} lock session used before connect()`);
          return driver.rows(connection, sql, params);
        },
        async release() {
          if (connection !== undefined) driver.giveBack(connection);
          connection = undefined;
        },
      };
    },
  };
}
