import type {
  AdvisoryLockProvider,
  HeldLock,
  LockMode,
} from '../interfaces/advisory-lock.interface.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import {
  DEFAULT_LOCK_QUERY_TIMEOUT_MS,
  tryLockChosenIdOnDedicatedConnection,
  tryLockOnDedicatedConnection,
  type DatabaseLockProviderOptions,
  type DedicatedLockStatements,
  type DriverConnection,
} from './connection-held-lock.js';
import type { LockSessionSource } from './lock-session.js';
import { assertLockId, assertNamespace, mysqlLockName } from './lock-keys.js';
import { releaseQuietly } from './query-runner-helpers.js';

// Timeout 0: try once without waiting. The name is always a bound parameter, never spliced into SQL.
const LOCK_SQL = 'SELECT GET_LOCK(?, 0) AS locked';
const CHECK_SQL = 'SELECT IS_USED_LOCK(?) = CONNECTION_ID() AS held';
const UNLOCK_SQL = 'SELECT RELEASE_LOCK(?) AS released';

/** Ids per lowest-free statement: two bound parameters each, far below the placeholder limit. */
const LOWEST_CHUNK = 500;
const MAX_RACES = 3;

/**
 * The lowest free id of `count` candidates in one statement, locking it and nothing else. The
 * inner derived table has a LIMIT, so neither MySQL nor MariaDB merges it into the outer query:
 * it is materialized first (IS_FREE_LOCK only reads), and GET_LOCK runs on its single row. The
 * names come as bound (id, name) pairs, built by the same mysqlLockName as single locks.
 * A NULL id: nothing was free, or another session took the chosen id in between.
 */
function lockLowestSql(count: number): string {
  const rows = Array.from({ length: count }, (_, i) =>
    i === 0 ? 'SELECT ? AS id, ? AS name' : 'SELECT ?, ?',
  ).join(' UNION ALL ');
  return `SELECT IF(GET_LOCK(first.name, 0) = 1, first.id, NULL) AS id FROM (
  SELECT ids.id, ids.name FROM (${rows}) AS ids
  WHERE IS_FREE_LOCK(ids.name) = 1 ORDER BY ids.id LIMIT 1) AS first`;
}

function anyFreeSql(count: number): string {
  const rows = Array.from({ length: count }, (_, i) => (i === 0 ? 'SELECT ? AS name' : 'SELECT ?'));
  return `SELECT COUNT(*) AS free FROM (${rows.join(' UNION ALL ')}) AS names WHERE IS_FREE_LOCK(names.name) = 1`;
}

const MYSQL_TYPES: readonly string[] = ['mysql', 'mariadb'];

interface MysqlConnectionLike {
  destroy?: () => void;
}

/** Destroys a mysql2 pool connection: it leaves the pool and its session (and user locks) ends. */
function discardMysqlConnection(connection: DriverConnection): void {
  try {
    (connection as MysqlConnectionLike).destroy?.();
  } catch {
    // Destroying an already closed connection has nothing left to do.
  }
}

/**
 * MySQL / MariaDB user locks `GET_LOCK('<namespace>-<id>', 0)`, each held on its own pooled connection
 * for as long as the lock lives. User-lock names are server-wide, not per database.
 */
export class MysqlAdvisoryLockProvider implements AdvisoryLockProvider {
  readonly mode = 'mysql' satisfies LockMode;
  readonly #queryTimeoutMs: number;
  readonly #logger: BroadcastLogger | undefined;

  constructor(
    private readonly dataSource: LockSessionSource,
    readonly namespace: string,
    options: DatabaseLockProviderOptions = {},
  ) {
    assertNamespace(namespace);
    const type = dataSource.options?.type;
    if (type !== undefined && !MYSQL_TYPES.includes(type)) {
      throw new TypeError(
        `MysqlAdvisoryLockProvider needs a mysql or mariadb DataSource, got ${type}`,
      );
    }
    this.#queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_LOCK_QUERY_TIMEOUT_MS;
    this.#logger = options.logger;
  }

  /** The user-lock name used for `id` (at most 64 characters). */
  lockName(id: number): string {
    return mysqlLockName(this.namespace, id);
  }

  async tryLock(id: number): Promise<HeldLock | null> {
    assertLockId(id);
    return tryLockOnDedicatedConnection(
      this.dataSource,
      id,
      this.statements(id),
      this.lockOptions(id),
    );
  }

  /**
   * The lowest free id in [from, limit), locked in one statement per chunk of ids (and one
   * more, cheap check when that statement found nothing, so that losing a race for the
   * chosen id is not mistaken for a full pool).
   */
  async tryLockLowest(from: number, limit: number): Promise<HeldLock | null> {
    assertLockId(from);
    if (limit <= from) return null;
    assertLockId(limit - 1);
    for (let start = from, races = 0; start < limit;) {
      const end = Math.min(limit, start + LOWEST_CHUNK);
      const ids = Array.from({ length: end - start }, (_, i) => start + i);
      const lock = await tryLockChosenIdOnDedicatedConnection(
        this.dataSource,
        lockLowestSql(ids.length),
        ids.flatMap((id) => [id, this.lockName(id)]),
        (id) => this.statements(id),
        (id) => this.lockOptions(id),
      );
      if (lock) return lock;
      // Lost the chosen id to another session: try the chunk again, a few times at most.
      if (races++ >= MAX_RACES || !(await this.anyFree(ids))) [start, races] = [end, 0];
    }
    return null;
  }

  private async anyFree(ids: number[]): Promise<boolean> {
    // A session of its own, returned at once: this statement takes no lock.
    const session = this.dataSource.createQueryRunner();
    try {
      await session.connect();
      const rows = (await session.query(
        anyFreeSql(ids.length),
        ids.map((id) => this.lockName(id)),
      )) as { free: number | string }[];
      return Number(rows[0]?.free ?? 0) > 0;
    } finally {
      await releaseQuietly(session);
    }
  }

  private statements(id: number): DedicatedLockStatements {
    const name = [this.lockName(id)] as const;
    return {
      lockSql: LOCK_SQL,
      lockParams: name,
      checkSql: CHECK_SQL,
      checkParams: name,
      unlockSql: UNLOCK_SQL,
      unlockParams: name,
    };
  }

  private lockOptions(id: number) {
    return {
      queryTimeoutMs: this.#queryTimeoutMs,
      discard: discardMysqlConnection,
      description: `mysql user lock '${this.lockName(id)}'`,
      logger: this.#logger,
    };
  }
}
