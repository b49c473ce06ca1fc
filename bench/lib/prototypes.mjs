// PROTOTYPES of proposed library changes, measured by the benchmarks next to the real thing.
// Nothing here is used by the library; each is plugged in from outside through public seams.

/**
 * A PostgreSQL lock provider whose lowest-first walk runs inside the database: one statement
 *   SELECT id FROM generate_series($from, $max) AS id WHERE pg_try_advisory_lock(ns, id) LIMIT 1
 * takes the lowest free id (the Limit node stops at the first success, so exactly one lock is taken).
 * It plugs into the engine's unchanged allocator via `engine.locks.bind(provider)`. The allocator
 * still asks id by id, so the id won is kept as a reservation: ids below it answer "taken" without a
 * query, and the id itself returns the lock. Same lock keys as the library's provider (two-int4 form).
 */
export class ServerSideWalkProvider {
  mode = 'postgres';
  #reserved;

  constructor(dataSource, namespaceKey, maxId = 199) {
    this.dataSource = dataSource;
    this.key = namespaceKey;
    this.maxId = maxId;
    this.queries = 0;
  }

  async tryLock(id) {
    const reserved = this.#reserved;
    if (reserved && id < reserved.id) return null;
    this.#reserved = undefined;
    if (reserved && id === reserved.id) return this.#held(reserved);
    if (reserved) await this.#held(reserved).release(); // walked past it (should not happen)
    const queryRunner = this.dataSource.createQueryRunner();
    await queryRunner.connect();
    this.queries++;
    const rows = await queryRunner.query(
      'SELECT id FROM generate_series($2::int4, $3::int4) AS id WHERE pg_try_advisory_lock($1::int4, id) LIMIT 1',
      [this.key, id, this.maxId],
    );
    if (rows.length === 0) {
      await queryRunner.release();
      return null;
    }
    const won = { id: Number(rows[0].id), queryRunner };
    if (won.id === id) return this.#held(won);
    this.#reserved = won;
    return null;
  }

  #held({ id, queryRunner }) {
    const key = this.key;
    let released;
    return {
      id,
      async isHeld() {
        if (released) return false;
        const rows = await queryRunner
          .query(
            `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()
             AND classid = ($1::int8 & 4294967295)::oid AND objid = ($2::int8 & 4294967295)::oid
             AND objsubid = 2 AND granted) AS held`,
            [key, id],
          )
          .catch(() => []);
        return rows[0]?.held === true;
      },
      release() {
        released ??= (async () => {
          await queryRunner
            .query('SELECT pg_advisory_unlock($1::int4, $2::int4)', [key, id])
            .catch(() => undefined);
          await queryRunner.release().catch(() => undefined);
        })();
        return released;
      },
    };
  }
}

/**
 * PROTOTYPE: the first heartbeat after ready waits a random part of the jitter window
 * (0 .. intervalMs x jitter) instead of going out at once. When many instances become ready
 * together, the first one's heartbeat then silences the others, as it does in steady state.
 * Plugged in by wrapping `engine.heartbeat.start` (called once the reader is ready).
 */
export function delayFirstHeartbeat(engine, windowMs) {
  const start = engine.heartbeat.start.bind(engine.heartbeat);
  engine.heartbeat.start = () => {
    const timer = setTimeout(start, Math.random() * windowMs);
    timer.unref?.();
  };
}
