import { lockNamespaceKey, mysqlLockName } from './lock-keys.js';

/** pg_locks stores each int4 key as an unsigned oid; the engine's locks use the two-key form. */
const PG_HELD_SQL = `SELECT objid::int8 AS id FROM pg_locks
  WHERE locktype = 'advisory' AND classid = ($1::int8 & 4294967295)::oid
    AND objsubid = 2 AND granted`;

/**
 * Which of the pool's ids are locked right now, seen from another session of the same
 * database: PostgreSQL (postgres://) through pg_locks, MySQL / MariaDB (mysql:// or
 * mariadb://) through IS_USED_LOCK for each of `ids`. The drivers are imported on demand.
 */
export async function heldLockIds(
  databaseUrl: string,
  namespace: string,
  ids: readonly number[],
): Promise<Set<number>> {
  const scheme = /^([a-z]+):\/\//i.exec(databaseUrl)?.[1]?.toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ id: string }>(PG_HELD_SQL, [
        lockNamespaceKey(namespace),
      ]);
      return new Set(rows.map((r) => Number(r.id)));
    } finally {
      await client.end();
    }
  }
  if (scheme === 'mysql' || scheme === 'mariadb') {
    const mysql = await import('mysql2/promise');
    const connection = await mysql.createConnection(databaseUrl.replace(/^mariadb:/i, 'mysql:'));
    try {
      const held = new Set<number>();
      for (const id of ids) {
        const [rows] = await connection.query('SELECT IS_USED_LOCK(?) AS owner', [
          mysqlLockName(namespace, id),
        ]);
        if ((rows as { owner: unknown }[])[0]?.owner != null) held.add(id);
      }
      return held;
    } finally {
      await connection.end();
    }
  }
  throw new Error(
    `--database-url must start with postgres://, mysql:// or mariadb://, got '${scheme ?? databaseUrl}'`,
  );
}
