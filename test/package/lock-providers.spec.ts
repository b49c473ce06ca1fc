/**
 * The lock providers that need no TypeORM (`nestjs-kafka-broadcast/locks`): `pgAdvisoryLocks` on a
 * plain `pg` Pool and `mysqlAdvisoryLocks` on a `mysql2/promise` pool, against the real PostgreSQL
 * and MariaDB on this machine. Each pool stands in for a separate application instance. Then two
 * engines on the real broker take their locks through `lock.provider`.
 */
import mysql from 'mysql2/promise';
import pg from 'pg';
import { BroadcastEngine, type AdvisoryLockProvider } from 'nestjs-kafka-broadcast';
import { mysqlAdvisoryLocks, pgAdvisoryLocks } from 'nestjs-kafka-broadcast/locks';
import { lockNamespaceKey, mysqlLockName } from '../../libs/broadcast/src/locks/lock-keys.js';
import { deletePrefix } from '../support/faults/faults.js';
import { kafkaBrokers, newAdmin, runId, testPrefix } from '../support/broker/kafka.js';
import { heldLocks, pgClient } from '../support/nest/nest.js';

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

interface Driver {
  name: 'pg' | 'mysql2';
  /** A pool, the provider factory over it, and how to end the pool. */
  open(): { factory: ReturnType<typeof pgAdvisoryLocks>; end(): Promise<void> };
  /** Ids of `namespace` held in the database right now (ids 0..9). */
  held(namespace: string): Promise<number[]>;
  /** Ends the database session holding `namespace`/`id` from outside. */
  kill(namespace: string, id: number): Promise<void>;
}

const PG: Driver = {
  name: 'pg',
  open() {
    const pool = new pg.Pool({ host: '127.0.0.1', user: 'postgres', database: 'test', max: 3 });
    return { factory: pgAdvisoryLocks(pool, { queryTimeoutMs: 2_000 }), end: () => pool.end() };
  },
  async held(namespace) {
    const client = await pgClient();
    try {
      return (await heldLocks(client, lockNamespaceKey(namespace))).map((l) => l.id);
    } finally {
      await client.end();
    }
  },
  async kill(namespace, id) {
    const client = await pgClient();
    try {
      await client.query(
        `SELECT pg_terminate_backend(pid) FROM pg_locks
          WHERE locktype = 'advisory' AND objsubid = 2 AND granted
            AND classid = ($1::int8 & 4294967295)::oid AND objid = $2::int8::oid`,
        [lockNamespaceKey(namespace), id],
      );
    } finally {
      await client.end();
    }
  },
};

const MYSQL: Driver = {
  name: 'mysql2',
  open() {
    const pool = mysql.createPool({
      host: '127.0.0.1',
      port: 3306,
      user: 'root',
      database: 'test',
      connectionLimit: 3,
    });
    return { factory: mysqlAdvisoryLocks(pool, { queryTimeoutMs: 2_000 }), end: () => pool.end() };
  },
  async held(namespace) {
    const connection = await mysql.createConnection({ host: '127.0.0.1', user: 'root' });
    try {
      const held: number[] = [];
      for (let id = 0; id < 10; id++) {
        const [rows] = await connection.query('SELECT IS_USED_LOCK(?) AS holder', [
          mysqlLockName(namespace, id),
        ]);
        if ((rows as { holder: unknown }[])[0]?.holder !== null) held.push(id);
      }
      return held;
    } finally {
      await connection.end();
    }
  },
  async kill(namespace, id) {
    const connection = await mysql.createConnection({ host: '127.0.0.1', user: 'root' });
    try {
      const [rows] = await connection.query('SELECT IS_USED_LOCK(?) AS holder', [
        mysqlLockName(namespace, id),
      ]);
      const holder = (rows as { holder: number | null }[])[0]?.holder;
      if (holder !== null && holder !== undefined) await connection.query(`KILL ${holder}`);
    } finally {
      await connection.end();
    }
  },
};

describe.each([PG, MYSQL])('$name lock provider without TypeORM', (driver) => {
  const pools: { end(): Promise<void> }[] = [];
  const namespace = `pkglocks-${runId()}-${driver.name}`;
  const open = (): AdvisoryLockProvider => {
    const { factory, end } = driver.open();
    pools.push({ end });
    return factory({ namespace, logger: quiet });
  };

  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.end()));
  });

  it('locks an id for one pool only, until released', async () => {
    const a = open();
    const b = open();
    expect(a.mode).toBe(driver.name === 'pg' ? 'postgres' : 'mysql');
    const held = await a.tryLock(0);
    expect(held?.id).toBe(0);
    expect(await held!.isHeld()).toBe(true);
    expect(await b.tryLock(0)).toBeNull();
    expect(await driver.held(namespace)).toEqual([0]);

    await held!.release();
    expect(await held!.isHeld()).toBe(false);
    expect(await driver.held(namespace)).toEqual([]);
    const taken = await b.tryLock(0);
    expect(taken?.id).toBe(0);
    await taken!.release();
    expect(await driver.held(namespace)).toEqual([]);
  });

  it('reports a lock whose session was killed as lost, and the pool keeps working', async () => {
    const a = open();
    const held = await a.tryLock(3);
    expect(await held!.isHeld()).toBe(true);
    await driver.kill(namespace, 3);
    await vi.waitFor(async () => expect(await held!.isHeld()).toBe(false), {
      timeout: 10_000,
      interval: 100,
    });
    await held!.release();
    // The same pool takes the id again on a fresh connection.
    const again = await a.tryLock(3);
    expect(await again!.isHeld()).toBe(true);
    await again!.release();
    expect(await driver.held(namespace)).toEqual([]);
  });

  if (driver.name === 'pg') {
    it('takes the lowest free id in one statement', async () => {
      const a = open();
      const b = open();
      const first = await a.tryLockLowest!(0, 5);
      const second = await b.tryLockLowest!(0, 5);
      expect([first?.id, second?.id]).toEqual([0, 1]);
      await Promise.all([first!.release(), second!.release()]);
    });
  }
});

describe.each([PG, MYSQL])('two engines locking through lock.provider ($name)', (driver) => {
  const prefix = testPrefix(`pkglocks-${driver.name}`);
  const pools: { end(): Promise<void> }[] = [];
  const engines: BroadcastEngine[] = [];

  afterAll(async () => {
    await Promise.all(engines.map((e) => e.stop()));
    await Promise.all(pools.map((p) => p.end()));
    const admin = await newAdmin();
    try {
      await deletePrefix(admin, prefix);
    } finally {
      await admin.disconnect();
    }
  });

  it('claim distinct ids, both receive a broadcast, and stop() frees both locks', async () => {
    const received: unknown[][] = [[], []];
    for (const i of [0, 1]) {
      const { factory, end } = driver.open();
      pools.push({ end });
      const engine = new BroadcastEngine(
        {
          kafka: { brokers: kafkaBrokers(), clientId: `pkglocks-${runId()}` },
          topicPrefix: prefix,
          lock: { provider: factory },
          heartbeat: false,
          consumer: { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 500 },
        },
        { logger: quiet },
      ).on('ping', (payload) => void received[i]!.push(payload));
      engines.push(engine);
      await engine.start();
    }
    const statuses = engines.map((e) => e.reader.status());
    expect(statuses.map((s) => s.lockMode)).toEqual(
      Array(2).fill(driver.name === 'pg' ? 'postgres' : 'mysql'),
    );
    expect(new Set(statuses.map((s) => s.lockId)).size).toBe(2);
    const namespace = `${prefix}broadcastConsumer`;
    expect((await driver.held(namespace)).sort()).toEqual(statuses.map((s) => s.lockId).sort());

    await engines[0]!.publisher.publish('ping', { n: 1 });
    await vi.waitFor(() => expect(received).toEqual([[{ n: 1 }], [{ n: 1 }]]), {
      timeout: 30_000,
      interval: 50,
    });

    await Promise.all(engines.map((e) => e.stop()));
    expect(await driver.held(namespace)).toEqual([]);
  });
});
