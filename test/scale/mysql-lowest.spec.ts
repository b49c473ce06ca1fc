/**
 * MySQL / MariaDB: the lowest free id in one statement, on the real MariaDB server. Each call
 * must lock exactly the id it reports and nothing else: checked from another session with
 * IS_USED_LOCK on every name of the range (and beyond it), which shows the holding connection.
 */
import { DataSource } from 'typeorm';
import type { HeldLock } from '../../libs/broadcast/src/interfaces/advisory-lock.interface.js';
import { MysqlAdvisoryLockProvider } from '../../libs/broadcast/src/locks/index.js';
import { MARIADB_OPTIONS } from '../support/engine/engine.js';
import { testPrefix } from '../support/broker/kafka.js';

const RANGE = 12;

describe.each(['mariadb', 'mysql'] as const)(
  'MysqlAdvisoryLockProvider.tryLockLowest (real MariaDB, driver type %s)',
  (type) => {
    const ns = `${testPrefix(`lowest-${type}`)}ns`;
    const held: HeldLock[] = [];
    let instanceA: DataSource;
    let instanceB: DataSource;
    let admin: DataSource;

    beforeAll(async () => {
      [instanceA, instanceB, admin] = await Promise.all(
        [0, 1, 2].map(() => new DataSource({ ...MARIADB_OPTIONS, type }).initialize()),
      );
    });

    afterEach(async () => {
      await Promise.all(held.splice(0).map((l) => l.release()));
    });

    afterAll(async () => {
      await Promise.all([instanceA, instanceB, admin].map((ds) => ds?.destroy()));
    });

    /** The holding connection of every id in [0, RANGE + 4), as another session sees it. */
    async function holders(provider: MysqlAdvisoryLockProvider): Promise<(number | null)[]> {
      const ids = Array.from({ length: RANGE + 4 }, (_, id) => id);
      const rows: { holder: number | string | null }[][] = await Promise.all(
        ids.map((id) => admin.query('SELECT IS_USED_LOCK(?) AS holder', [provider.lockName(id)])),
      );
      return rows.map(([row]) => (row?.holder == null ? null : Number(row.holder)));
    }

    async function lowest(p: MysqlAdvisoryLockProvider, from: number, limit: number) {
      const lock = await p.tryLockLowest(from, limit);
      if (lock) held.push(lock);
      return lock;
    }

    it('takes the lowest free id, one per call, and holds no lock it does not report', async () => {
      const a = new MysqlAdvisoryLockProvider(instanceA, ns);
      const b = new MysqlAdvisoryLockProvider(instanceB, ns);
      // Another instance holds ids 0 and 2 (one at a time, as the allocator takes them).
      const b0 = await lowest(b, 0, RANGE);
      const b2 = (await b.tryLock(2))!;
      held.push(b2);
      expect(b0?.id).toBe(0);

      const a1 = await lowest(a, 0, RANGE);
      expect(a1?.id).toBe(1);
      let seen = await holders(a);
      const a1Connection = seen[1];
      expect(a1Connection).not.toBeNull();
      // Exactly three names are in use: 0 and 2 by B's connections, 1 by A's, nothing else.
      expect(seen.map((h) => h !== null)).toEqual(
        Array.from({ length: RANGE + 4 }, (_, id) => id <= 2),
      );
      expect(seen.filter((h) => h === a1Connection)).toHaveLength(1);
      expect([seen[0], seen[2]]).not.toContain(a1Connection);

      // The next call skips every held id and takes 3, on a connection of its own.
      const a3 = await lowest(a, 0, RANGE);
      expect(a3?.id).toBe(3);
      seen = await holders(a);
      expect(seen.map((h) => h !== null)).toEqual(
        Array.from({ length: RANGE + 4 }, (_, id) => id <= 3),
      );
      expect(new Set(seen.slice(0, 4)).size).toBe(4);

      // Starting above the held ids; and a range with nothing free locks nothing at all.
      expect((await lowest(a, 5, RANGE))?.id).toBe(5);
      const before = await holders(a);
      expect(await lowest(a, 0, 4)).toBeNull();
      expect(await holders(a)).toEqual(before);

      // A released id is found again, and the lock behaves like any other.
      await a1!.release();
      held.splice(held.indexOf(a1!), 1);
      expect((await holders(a))[1]).toBeNull();
      const again = await lowest(b, 0, RANGE);
      expect(again?.id).toBe(1);
      expect(await again!.isHeld()).toBe(true);
    });

    it('walks past a full first chunk of 500 ids into the next statement', async () => {
      const a = new MysqlAdvisoryLockProvider(instanceA, ns);
      const b = new MysqlAdvisoryLockProvider(instanceB, ns);
      for (const id of [498, 499]) held.push((await b.tryLock(id))!);
      const lock = await lowest(a, 498, 600);
      expect(lock?.id).toBe(500);
      const [{ used }] = await admin.query('SELECT IS_USED_LOCK(?) IS NOT NULL AS used', [
        a.lockName(501),
      ]);
      expect(Number(used)).toBe(0);
    });
  },
);
