import type {
  AdvisoryLockProvider,
  HeldLock,
  LockMode,
} from '../interfaces/advisory-lock.interface.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import {
  DEFAULT_LOCK_QUERY_TIMEOUT_MS,
  tryLockOnDedicatedConnection,
  type DatabaseLockProviderOptions,
  type DriverConnection,
} from './connection-held-lock.js';
import type { LockSessionSource } from './lock-session.js';
import { assertLockId, assertNamespace, mysqlLockName } from './lock-keys.js';

// Timeout 0: try once without waiting. The name is always a bound parameter, never spliced into SQL.
const LOCK_SQL = 'SELECT GET_LOCK(?, 0) AS locked';
const CHECK_SQL = 'SELECT IS_USED_LOCK(?) = CONNECTION_ID() AS held';
const UNLOCK_SQL = 'SELECT RELEASE_LOCK(?) AS released';

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
    const name = [this.lockName(id)] as const;
    return tryLockOnDedicatedConnection(
      this.dataSource,
      id,
      {
        lockSql: LOCK_SQL,
        lockParams: name,
        checkSql: CHECK_SQL,
        checkParams: name,
        unlockSql: UNLOCK_SQL,
        unlockParams: name,
      },
      {
        queryTimeoutMs: this.#queryTimeoutMs,
        discard: discardMysqlConnection,
        description: `mysql user lock '${name[0]}'`,
        logger: this.#logger,
      },
    );
  }
}
