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
import { assertLockId, assertNamespace, lockNamespaceKey } from './lock-keys.js';

// The two-int4 form (objsubid 2) can never meet the application's one-key bigint locks (objsubid 1).
const LOCK_SQL = 'SELECT pg_try_advisory_lock($1::int4, $2::int4) AS locked';
// No ORDER BY: the function scan yields ids in order and LIMIT stops it at the first lock taken,
// so exactly one lock is acquired.
const LOCK_LOWEST_SQL = `SELECT id FROM generate_series($2::int4, $3::int4) AS id
  WHERE pg_try_advisory_lock($1::int4, id) LIMIT 1`;
const UNLOCK_SQL = 'SELECT pg_advisory_unlock($1::int4, $2::int4) AS unlocked';
// pg_locks stores each int4 key as an oid (unsigned 32-bit), so a negative key must be masked first.
const CHECK_SQL = `SELECT EXISTS (
  SELECT 1 FROM pg_locks
  WHERE locktype = 'advisory'
    AND pid = pg_backend_pid()
    AND classid = ($1::int8 & 4294967295)::oid
    AND objid = ($2::int8 & 4294967295)::oid
    AND objsubid = 2
    AND granted
) AS held`;

interface PgClientLike {
  end?: () => Promise<void> | void;
}

/** Closes a pg client; pg-pool then drops it instead of reusing it, which ends the session and its locks. */
function discardPgClient(connection: DriverConnection): void {
  const client = connection as PgClientLike;
  try {
    void Promise.resolve(client.end?.()).catch(() => undefined);
  } catch {
    // A client that cannot even start closing is already unusable.
  }
}

/**
 * Session-level PostgreSQL advisory locks `pg_try_advisory_lock(namespaceKey, id)`, each held on its
 * own pooled connection for as long as the lock lives.
 */
export class PostgresAdvisoryLockProvider implements AdvisoryLockProvider {
  readonly mode = 'postgres' satisfies LockMode;
  /** The int4 first key derived from the namespace (see `lockNamespaceKey`). */
  readonly namespaceKey: number;
  readonly #queryTimeoutMs: number;
  readonly #logger: BroadcastLogger | undefined;

  constructor(
    private readonly dataSource: LockSessionSource,
    readonly namespace: string,
    options: DatabaseLockProviderOptions = {},
  ) {
    assertNamespace(namespace);
    const type = dataSource.options?.type;
    if (type !== undefined && type !== 'postgres') {
      throw new TypeError(`PostgresAdvisoryLockProvider needs a postgres DataSource, got ${type}`);
    }
    this.namespaceKey = lockNamespaceKey(namespace);
    this.#queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_LOCK_QUERY_TIMEOUT_MS;
    this.#logger = options.logger;
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

  async tryLockLowest(from: number, limit: number): Promise<HeldLock | null> {
    assertLockId(from);
    if (limit <= from) return null;
    assertLockId(limit - 1);
    return tryLockChosenIdOnDedicatedConnection(
      this.dataSource,
      LOCK_LOWEST_SQL,
      [this.namespaceKey, from, limit - 1],
      (id) => this.statements(id),
      (id) => this.lockOptions(id),
    );
  }

  private statements(id: number): DedicatedLockStatements {
    const keys = [this.namespaceKey, id] as const;
    return {
      lockSql: LOCK_SQL,
      lockParams: keys,
      checkSql: CHECK_SQL,
      checkParams: keys,
      unlockSql: UNLOCK_SQL,
      unlockParams: keys,
    };
  }

  private lockOptions(id: number) {
    return {
      queryTimeoutMs: this.#queryTimeoutMs,
      discard: discardPgClient,
      description: `postgres advisory lock (${this.namespaceKey}, ${id})`,
      logger: this.#logger,
    };
  }
}
