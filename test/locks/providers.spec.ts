/**
 * Integration tests of the advisory-lock providers against the real PostgreSQL and MariaDB servers
 * on this machine. Each DataSource is a separate pool, standing in for a separate application instance.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type {
  AdvisoryLockProvider,
  HeldLock,
} from '../../libs/broadcast/src/interfaces/advisory-lock.interface.js';
import type { BroadcastLogger } from '../../libs/broadcast/src/interfaces/broadcast-logger.interface.js';
import {
  createAdvisoryLockProvider,
  LockFreeProvider,
  lockNamespaceKey,
  MysqlAdvisoryLockProvider,
  PostgresAdvisoryLockProvider,
} from '../../libs/broadcast/src/locks/index.js';

const RUN = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

const PG_OPTIONS = {
  type: 'postgres',
  host: '127.0.0.1',
  port: 5432,
  username: 'postgres',
  database: 'test',
  applicationName: `locktest-${RUN}`,
} as const satisfies DataSourceOptions;

function mysqlOptions(type: 'mysql' | 'mariadb') {
  return {
    type,
    host: '127.0.0.1',
    port: 3306,
    username: 'root',
    password: '',
    database: 'test',
  } as const satisfies DataSourceOptions;
}

function namespace(label: string): string {
  return `locktest-${RUN}-${label}`;
}

/** A namespace for this run whose derived PostgreSQL key has the requested sign. */
function namespaceWithKeySign(label: string, negative: boolean): string {
  for (let i = 0; ; i++) {
    const candidate = namespace(`${label}${i}`);
    if (lockNamespaceKey(candidate) < 0 === negative) return candidate;
  }
}

async function openDataSource(options: DataSourceOptions): Promise<DataSource> {
  return new DataSource(options).initialize();
}

/** Polls `probe` until `accept` holds or the deadline passes. */
async function eventually<T>(
  what: string,
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(20);
  }
}

/** Fails instead of hanging when `promise` does not settle in time (e.g. a leaked pool connection). */
async function withinDeadline<T>(what: string, promise: Promise<T>, timeoutMs = 5_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not settle within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Remembers every lock a test takes so afterEach can release them even when the test fails. */
class LockTracker {
  readonly #locks: HeldLock[] = [];

  async take(provider: AdvisoryLockProvider, id: number): Promise<HeldLock | null> {
    const lock = await provider.tryLock(id);
    if (lock) this.#locks.push(lock);
    return lock;
  }

  adopt(lock: HeldLock): void {
    this.#locks.push(lock);
  }

  async mustTake(provider: AdvisoryLockProvider, id: number): Promise<HeldLock> {
    const lock = await this.take(provider, id);
    if (!lock) throw new Error(`expected to take lock ${id}`);
    return lock;
  }

  /** Retries until the lock is free, e.g. while the server is still cleaning up a killed session. */
  async takeEventually(provider: AdvisoryLockProvider, id: number): Promise<HeldLock> {
    const lock = await eventually(
      `lock ${id} to become free`,
      () => this.take(provider, id),
      (l) => l !== null,
    );
    return lock!;
  }

  async releaseAll(): Promise<void> {
    await Promise.all(this.#locks.splice(0).map((lock) => lock.release()));
  }
}

function captureLogger(): BroadcastLogger & {
  warnings: string[];
  others: string[];
} {
  const warnings: string[] = [];
  const others: string[] = [];
  return {
    warnings,
    others,
    log: (message) => others.push(message),
    warn: (message) => warnings.push(message),
    error: (message) => others.push(message),
    debug: (message) => others.push(message),
  };
}

describe('PostgresAdvisoryLockProvider (real PostgreSQL)', () => {
  const positive = namespaceWithKeySign('pos', false);
  const negative = namespaceWithKeySign('neg', true);
  const locks = new LockTracker();
  let instanceA: DataSource;
  let instanceB: DataSource;
  let admin: DataSource;

  beforeAll(async () => {
    [instanceA, instanceB, admin] = await Promise.all([
      openDataSource(PG_OPTIONS),
      openDataSource(PG_OPTIONS),
      openDataSource(PG_OPTIONS),
    ]);
  });

  afterEach(() => locks.releaseAll());

  afterAll(async () => {
    await Promise.all([instanceA, instanceB, admin].map((ds) => ds?.destroy()));
  });

  /** The granted two-key advisory lock rows for (key, id), as pg_locks shows them to another session. */
  async function lockRows(key: number, id: number) {
    const rows: {
      pid: number;
      classid: string;
      objid: string;
      objsubid: number;
    }[] = await admin.query(
      `SELECT pid, classid::int8::text AS classid, objid::int8::text AS objid, objsubid
         FROM pg_locks
        WHERE locktype = 'advisory' AND granted
          AND classid = ($1::int8 & 4294967295)::oid AND objid = $2::int8::oid AND objsubid = 2`,
      [key, id],
    );
    return rows;
  }

  it('finds namespaces whose derived key is positive and negative', () => {
    expect(lockNamespaceKey(positive)).toBeGreaterThanOrEqual(0);
    expect(lockNamespaceKey(negative)).toBeLessThan(0);
  });

  it.each([
    ['positive', positive],
    ['negative', negative],
  ])('lets only one instance hold an id at a time (%s namespace key)', async (_sign, ns) => {
    const a = new PostgresAdvisoryLockProvider(instanceA, ns);
    const b = new PostgresAdvisoryLockProvider(instanceB, ns);

    const held = await locks.mustTake(a, 1);
    expect(held.id).toBe(1);
    expect(await held.isHeld()).toBe(true);
    expect(await locks.take(b, 1)).toBeNull();

    await held.release();
    expect(await held.isHeld()).toBe(false);
    const taken = await locks.mustTake(b, 1);
    expect(await taken.isHeld()).toBe(true);
    expect(await locks.take(a, 1)).toBeNull();
  });

  it('locks the lowest free id in one statement, taking exactly one lock', async () => {
    const a = new PostgresAdvisoryLockProvider(instanceA, positive);
    const b = new PostgresAdvisoryLockProvider(instanceB, positive);
    const key = lockNamespaceKey(positive);
    const lowest = async (p: PostgresAdvisoryLockProvider, from: number, limit: number) => {
      const lock = await p.tryLockLowest(from, limit);
      if (lock) locks.adopt(lock);
      return lock;
    };

    const a0 = await lowest(a, 0, 5);
    const b1 = await lowest(b, 0, 5);
    const a2 = await lowest(a, 0, 5);
    expect([a0?.id, b1?.id, a2?.id]).toEqual([0, 1, 2]);
    // Each call took one lock: ids 3 and 4 stay free.
    for (const id of [3, 4]) expect(await lockRows(key, id)).toEqual([]);
    expect((await lockRows(key, 1))[0]?.pid).not.toBe((await lockRows(key, 0))[0]?.pid);
    // Starting above the held ids, and with a full range.
    expect((await lowest(b, 1, 5))?.id).toBe(3);
    expect(await lowest(b, 0, 3)).toBeNull();
    // A released id is found again, and the lock behaves like any other.
    await a0!.release();
    const again = await lowest(b, 0, 5);
    expect(again?.id).toBe(0);
    expect(await again!.isHeld()).toBe(true);
    await again!.release();
    expect(await lockRows(key, 0)).toEqual([]);
  });

  it('keeps different ids and different namespaces independent', async () => {
    const a = new PostgresAdvisoryLockProvider(instanceA, positive);
    const b = new PostgresAdvisoryLockProvider(instanceB, positive);
    const bOther = new PostgresAdvisoryLockProvider(instanceB, negative);

    const a1 = await locks.mustTake(a, 1);
    const b2 = await locks.mustTake(b, 2);
    const other1 = await locks.mustTake(bOther, 1);
    for (const lock of [a1, b2, other1]) expect(await lock.isHeld()).toBe(true);
  });

  it('uses the two-key form, so the application’s one-key locks never conflict', async () => {
    const provider = new PostgresAdvisoryLockProvider(instanceA, negative);
    const key = lockNamespaceKey(negative);
    expect(provider.namespaceKey).toBe(key);
    const held = await locks.mustTake(provider, 3);

    const rows = await lockRows(key, 3);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      classid: String(key >>> 0),
      objid: '3',
      objsubid: 2,
    });

    // The app's bigint locks: the bare id, and the very bigint whose halves equal our two keys.
    const sameHalves = BigInt.asIntN(64, (BigInt(key >>> 0) << 32n) | 3n).toString();
    const app = admin.createQueryRunner();
    try {
      for (const appKey of ['3', sameHalves]) {
        const [{ locked }] = await app.query('SELECT pg_try_advisory_lock($1::int8) AS locked', [
          appKey,
        ]);
        expect(locked).toBe(true);
        await app.query('SELECT pg_advisory_unlock($1::int8)', [appKey]);
      }
    } finally {
      await app.release();
    }
    expect(await held.isHeld()).toBe(true);
  });

  it('reports the lock lost when the server terminates its connection, and frees the id', async () => {
    const a = new PostgresAdvisoryLockProvider(instanceA, negative);
    const b = new PostgresAdvisoryLockProvider(instanceB, negative);
    const held = await locks.mustTake(a, 4);
    expect(await held.isHeld()).toBe(true);
    expect(await locks.take(b, 4)).toBeNull();

    const [{ pid }] = await lockRows(lockNamespaceKey(negative), 4);
    const [{ terminated }] = await admin.query('SELECT pg_terminate_backend($1) AS terminated', [
      pid,
    ]);
    expect(terminated).toBe(true);

    await eventually(
      'isHeld() to turn false',
      () => held.isHeld(),
      (h) => h === false,
    );
    const taken = await locks.takeEventually(b, 4);
    expect(await taken.isHeld()).toBe(true);
    await expect(held.release()).resolves.toBeUndefined();
    // The instance's pool dropped the dead client and still hands out working connections.
    const again = await locks.mustTake(a, 5);
    expect(await again.isHeld()).toBe(true);
  });

  it('releases idempotently and returns the connection to the pool', async () => {
    const small = await openDataSource({ ...PG_OPTIONS, poolSize: 1 });
    try {
      const provider = new PostgresAdvisoryLockProvider(small, positive);
      const other = new PostgresAdvisoryLockProvider(instanceB, positive);
      const held = await locks.mustTake(provider, 6);

      await Promise.all([held.release(), held.release()]);
      await held.release();
      expect(await held.isHeld()).toBe(false);
      // Unlocked on the server, not just forgotten locally.
      const byOther = await locks.mustTake(other, 6);
      await byOther.release();
      // With a pool of one connection, these would wait forever if a connection had leaked.
      const next = await withinDeadline('tryLock on a pool of one', locks.mustTake(provider, 7));
      await next.release();
      await locks.mustTake(other, 8);
      expect(await withinDeadline('tryLock on a busy id', locks.take(provider, 8))).toBeNull();
      expect(await withinDeadline('tryLock on a busy id', locks.take(provider, 8))).toBeNull();
      const pool = (
        small.driver as unknown as {
          master: { totalCount: number; idleCount: number };
        }
      ).master;
      expect(pool.idleCount).toBe(pool.totalCount);
    } finally {
      await locks.releaseAll();
      await withinDeadline('destroying the pool', small.destroy());
    }
  });

  it('rejects ids that do not fit the int4 key', async () => {
    const provider = new PostgresAdvisoryLockProvider(instanceA, positive);
    await expect(provider.tryLock(-1)).rejects.toThrow(RangeError);
    await expect(provider.tryLock(2 ** 31)).rejects.toThrow(RangeError);
  });
});

describe.each(['mariadb', 'mysql'] as const)(
  'MysqlAdvisoryLockProvider (real MariaDB, type %s)',
  (type) => {
    const options = mysqlOptions(type);
    const ns = namespace(`${type}-a`);
    const otherNs = namespace(`${type}-b`);
    const locks = new LockTracker();
    let instanceA: DataSource;
    let instanceB: DataSource;
    let admin: DataSource;

    beforeAll(async () => {
      [instanceA, instanceB, admin] = await Promise.all([
        openDataSource(options),
        openDataSource(options),
        openDataSource(options),
      ]);
    });

    afterEach(() => locks.releaseAll());

    afterAll(async () => {
      await Promise.all([instanceA, instanceB, admin].map((ds) => ds?.destroy()));
    });

    /** The connection id holding a user lock, as another session sees it (null when free). */
    async function holderOf(name: string): Promise<number | null> {
      const [{ holder }] = await admin.query('SELECT IS_USED_LOCK(?) AS holder', [name]);
      return holder === null ? null : Number(holder);
    }

    it('lets only one instance hold an id at a time', async () => {
      const a = new MysqlAdvisoryLockProvider(instanceA, ns);
      const b = new MysqlAdvisoryLockProvider(instanceB, ns);

      const held = await locks.mustTake(a, 1);
      expect(held.id).toBe(1);
      expect(await held.isHeld()).toBe(true);
      expect(await holderOf(`${ns}-1`)).not.toBeNull();
      expect(await locks.take(b, 1)).toBeNull();

      await held.release();
      expect(await held.isHeld()).toBe(false);
      expect(await holderOf(`${ns}-1`)).toBeNull();
      const taken = await locks.mustTake(b, 1);
      expect(await taken.isHeld()).toBe(true);
      expect(await locks.take(a, 1)).toBeNull();
    });

    it('keeps different ids and different namespaces independent', async () => {
      const a = new MysqlAdvisoryLockProvider(instanceA, ns);
      const b = new MysqlAdvisoryLockProvider(instanceB, ns);
      const bOther = new MysqlAdvisoryLockProvider(instanceB, otherNs);

      const a1 = await locks.mustTake(a, 1);
      const b2 = await locks.mustTake(b, 2);
      const other1 = await locks.mustTake(bOther, 1);
      for (const lock of [a1, b2, other1]) expect(await lock.isHeld()).toBe(true);
    });

    it('shortens names beyond 64 characters and still locks exclusively', async () => {
      const longNs = `${namespace(type)}-${'x'.repeat(80)}`;
      const a = new MysqlAdvisoryLockProvider(instanceA, longNs);
      const b = new MysqlAdvisoryLockProvider(instanceB, longNs);
      expect(a.lockName(2)).toHaveLength(64);

      const held = await locks.mustTake(a, 2);
      expect(await held.isHeld()).toBe(true);
      expect(await holderOf(a.lockName(2))).not.toBeNull();
      expect(await locks.take(b, 2)).toBeNull();
    });

    it('reports the lock lost when the server kills its connection, and frees the id', async () => {
      const a = new MysqlAdvisoryLockProvider(instanceA, ns);
      const b = new MysqlAdvisoryLockProvider(instanceB, ns);
      const held = await locks.mustTake(a, 4);
      expect(await held.isHeld()).toBe(true);

      const connectionId = await holderOf(a.lockName(4));
      expect(Number.isSafeInteger(connectionId)).toBe(true);
      await admin.query(`KILL ${connectionId}`);

      await eventually(
        'isHeld() to turn false',
        () => held.isHeld(),
        (h) => h === false,
      );
      const taken = await locks.takeEventually(b, 4);
      expect(await taken.isHeld()).toBe(true);
      await expect(held.release()).resolves.toBeUndefined();
      // The instance's pool dropped the dead connection and still hands out working ones.
      const again = await locks.mustTake(a, 5);
      expect(await again.isHeld()).toBe(true);
    });

    it('releases idempotently and returns the connection to the pool', async () => {
      const small = await openDataSource({ ...options, poolSize: 1 });
      try {
        const provider = new MysqlAdvisoryLockProvider(small, ns);
        const other = new MysqlAdvisoryLockProvider(instanceB, ns);
        const held = await locks.mustTake(provider, 6);

        await Promise.all([held.release(), held.release()]);
        await held.release();
        expect(await held.isHeld()).toBe(false);
        expect(await holderOf(`${ns}-6`)).toBeNull();
        // With a pool of one connection, these would wait forever if a connection had leaked.
        const next = await withinDeadline('tryLock on a pool of one', locks.mustTake(provider, 7));
        await next.release();
        await locks.mustTake(other, 8);
        expect(await withinDeadline('tryLock on a busy id', locks.take(provider, 8))).toBeNull();
        expect(await withinDeadline('tryLock on a busy id', locks.take(provider, 8))).toBeNull();
      } finally {
        await locks.releaseAll();
        await withinDeadline('destroying the pool', small.destroy());
      }
    });
  },
);

describe('createAdvisoryLockProvider', () => {
  const ns = namespace('factory');

  it('returns the PostgreSQL provider for a postgres DataSource', async () => {
    const logger = captureLogger();
    const ds = await openDataSource(PG_OPTIONS);
    try {
      const provider = createAdvisoryLockProvider(ds, ns, logger);
      expect(provider.mode).toBe('postgres');
      expect(provider).toBeInstanceOf(PostgresAdvisoryLockProvider);
      const held = await provider.tryLock(1);
      expect(await held?.isHeld()).toBe(true);
      await held?.release();
      expect(logger.warnings).toEqual([]);
    } finally {
      await ds.destroy();
    }
  });

  it.each(['mariadb', 'mysql'] as const)(
    'returns the MySQL provider for a %s DataSource',
    async (type) => {
      const logger = captureLogger();
      const ds = await openDataSource(mysqlOptions(type));
      try {
        const provider = createAdvisoryLockProvider(ds, ns, logger);
        expect(provider.mode).toBe('mysql');
        expect(provider).toBeInstanceOf(MysqlAdvisoryLockProvider);
        const held = await provider.tryLock(1);
        expect(await held?.isHeld()).toBe(true);
        await held?.release();
        expect(logger.warnings).toEqual([]);
      } finally {
        await ds.destroy();
      }
    },
  );

  it('runs lock-free without a DataSource, silently', async () => {
    const logger = captureLogger();
    const provider = createAdvisoryLockProvider(undefined, ns, logger);
    expect(provider.mode).toBe('none');
    expect(provider).toBeInstanceOf(LockFreeProvider);
    expect(logger.warnings).toEqual([]);
  });

  it('runs lock-free with exactly one warning for a driver without advisory locks', async () => {
    const logger = captureLogger();
    const ds = await openDataSource({
      type: 'better-sqlite3',
      database: ':memory:',
    });
    try {
      const provider = createAdvisoryLockProvider(ds, ns, logger);
      expect(provider.mode).toBe('none');
      const held = await provider.tryLock(3);
      expect(await held?.isHeld()).toBe(true);
      await held?.release();
      expect(logger.warnings).toHaveLength(1);
      expect(logger.warnings[0]).toContain('better-sqlite3');
      expect(logger.warnings[0]).toMatch(/lock-free/);
    } finally {
      await ds.destroy();
    }
  });
});

describe('LockFreeProvider', () => {
  it('grants every id, stays held, and releases as a no-op', async () => {
    const provider = new LockFreeProvider();
    const [first, second] = await Promise.all([provider.tryLock(1), provider.tryLock(1)]);
    expect(first?.id).toBe(1);
    expect(second?.id).toBe(1);
    await first?.release();
    await first?.release();
    expect(await first?.isHeld()).toBe(true);
  });
});
