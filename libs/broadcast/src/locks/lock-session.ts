/**
 * The few members of a TypeORM QueryRunner the locks use, so that TypeORM itself is never imported
 * and a plain `pg` or `mysql2` pool can stand in for a DataSource.
 */
export interface LockSession {
  connect(): Promise<unknown>;
  /** Runs one statement and resolves its rows. */
  query(sql: string, params?: unknown[]): Promise<unknown>;
  release(): Promise<void>;
  /** The driver's own connection (a pg `Client`, a mysql2 `PoolConnection`), once connected. */
  readonly databaseConnection?: unknown;
}

/** What lends lock sessions: a TypeORM DataSource, or an adapter over a driver pool. */
export interface LockSessionSource {
  createQueryRunner(): LockSession;
  /** TypeORM's DataSource options; only `type` is read, to check the driver. */
  readonly options?: { readonly type: string };
}
