// The one advisory-lock inspector of the tests: who holds a lock (by database session), killing
// that session from the database side, taking a lock over as "another instance", and the list of
// granted broadcast locks in PostgreSQL with each holder's application_name.
import type pg from 'pg';
import type { DataSource } from 'typeorm';
import { DEFAULT_LOCKED_GROUP_BASE } from '../../../libs/broadcast/src/core/options/broadcast.defaults.js';
import { lockNamespaceKey, mysqlLockName } from '../../../libs/broadcast/src/locks/index.js';
import { waitFor } from '../broker/kafka.js';
import { openDataSource, type LockKind } from './engine.js';

/** A test-side database connection (not an engine's) that can see and kill lock holders. */
export class LockInspector {
  private constructor(
    readonly kind: Exclude<LockKind, 'none'>,
    private readonly dataSource: DataSource,
    private readonly namespace: string,
  ) {}

  static async open(kind: Exclude<LockKind, 'none'>, namespace = ''): Promise<LockInspector> {
    return new LockInspector(kind, await openDataSource(kind, 'lock-inspector'), namespace);
  }

  /**
   * The database session (pg backend pid / MariaDB connection id) holding lock `id` of
   * `namespace` (the inspector's own by default), if any.
   */
  async holder(id: number, namespace = this.namespace): Promise<number | undefined> {
    if (this.kind === 'postgres') {
      const rows: { pid: number }[] = await this.dataSource.query(
        `SELECT pid FROM pg_locks
          WHERE locktype = 'advisory' AND granted
            AND classid = ($1::int8 & 4294967295)::oid AND objid = $2::int8::oid AND objsubid = 2`,
        [lockNamespaceKey(namespace), id],
      );
      return rows[0]?.pid;
    }
    const rows: { holder: number | string | null }[] = await this.dataSource.query(
      'SELECT IS_USED_LOCK(?) AS holder',
      [mysqlLockName(namespace, id)],
    );
    const holder = rows[0]?.holder;
    return holder === null || holder === undefined ? undefined : Number(holder);
  }

  /** Ends the session holding lock `id` from the database side; returns the session killed. */
  async killHolder(id: number): Promise<number> {
    const session = await this.holder(id);
    if (session === undefined) throw new Error(`nobody holds lock ${id} in ${this.namespace}`);
    await this.killSession(session);
    return session;
  }

  /** Ends `session` from the database side (pg_terminate_backend / KILL). */
  async killSession(session: number): Promise<void> {
    if (!Number.isSafeInteger(session)) throw new Error(`bad session id ${session}`);
    if (this.kind === 'postgres') {
      const rows: { ok: boolean }[] = await this.dataSource.query(
        'SELECT pg_terminate_backend($1) AS ok',
        [session],
      );
      if (rows[0]?.ok !== true)
        throw new Error(`pg_terminate_backend(${session}) returned ${String(rows[0]?.ok)}`);
    } else {
      await this.dataSource.query(`KILL ${session}`);
    }
  }

  /**
   * Kills the session holding lock `id`, then takes the lock on a dedicated connection of this
   * inspector as soon as the server has let it go: plays "another instance" that takes over the
   * id. The connection is opened before the kill, so the takeover polls within milliseconds.
   */
  async killHolderAndTakeOver(
    id: number,
    timeoutMs = 5_000,
  ): Promise<{ session: number; release: () => Promise<void> }> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    const [lockSql, unlockSql, params] =
      this.kind === 'postgres'
        ? [
            'SELECT pg_try_advisory_lock($1::int4, $2::int4) AS locked',
            'SELECT pg_advisory_unlock($1::int4, $2::int4) AS unlocked',
            [lockNamespaceKey(this.namespace), id],
          ]
        : [
            'SELECT GET_LOCK(?, 0) AS locked',
            'SELECT RELEASE_LOCK(?) AS unlocked',
            [mysqlLockName(this.namespace, id)],
          ];
    let session: number;
    try {
      session = await this.killHolder(id);
      await waitFor(
        async () => {
          const rows: { locked: unknown }[] = await runner.query(lockSql, params);
          const locked = rows[0]?.locked;
          return locked === true || Number(locked) === 1;
        },
        {
          timeoutMs,
          intervalMs: 5,
          message: `lock ${id} did not become free for the takeover (did the engine take it back first?)`,
        },
      );
    } catch (error) {
      await runner.release();
      throw error;
    }
    return {
      session,
      release: async () => {
        await runner.query(unlockSql, params).catch(() => undefined);
        await runner.release();
      },
    };
  }

  async close(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

/** The int4 first key of the advisory locks the engine takes for `prefix` (locked mode, default base). */
export function lockKeyOf(prefix: string, base = DEFAULT_LOCKED_GROUP_BASE): number {
  return lockNamespaceKey(prefix + base);
}

export interface HeldAdvisoryLock {
  id: number;
  applicationName: string;
}

/** Broadcast advisory locks currently granted in namespace `namespaceKey`, with the holder's application_name. */
export async function heldLocks(
  client: pg.Client,
  namespaceKey: number,
): Promise<HeldAdvisoryLock[]> {
  const { rows } = await client.query<{ id: string; application_name: string }>(
    `SELECT l.objid::int8 AS id, a.application_name
       FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.objsubid = 2 AND l.granted
        AND l.classid = ($1::int8 & 4294967295)::oid
      ORDER BY 1`,
    [namespaceKey],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    applicationName: r.application_name,
  }));
}
