// Control-flow tests of the dedicated-connection lock with a scripted QueryRunner. The real database
// behaviour (locks, kills, pools) is covered against PostgreSQL and MariaDB in test/locks/providers.spec.ts.
import { EventEmitter } from 'node:events';
import type { DataSource, QueryRunner } from 'typeorm';
import {
  tryLockOnDedicatedConnection,
  type DedicatedLockOptions,
  type DedicatedLockStatements,
} from './connection-held-lock.js';

const STATEMENTS: DedicatedLockStatements = {
  lockSql: 'lock',
  lockParams: [1],
  checkSql: 'check',
  checkParams: [1],
  unlockSql: 'unlock',
  unlockParams: [1],
};

type Answer = () => Promise<unknown>;

/** A QueryRunner whose answers are scripted per statement, over an EventEmitter "driver connection". */
function scriptedRunner(answers: Record<string, Answer>, connect: Answer = async () => undefined) {
  const connection = new EventEmitter();
  const calls: string[] = [];
  let released = 0;
  const runner = {
    databaseConnection: connection,
    connect: async () => {
      await connect();
      return connection;
    },
    query: (sql: string) => {
      calls.push(sql);
      return answers[sql]!();
    },
    release: async () => {
      released++;
    },
  };
  const dataSource = {
    createQueryRunner: () => runner as unknown as QueryRunner,
  };
  return {
    connection,
    calls,
    released: () => released,
    dataSource: dataSource as unknown as DataSource,
  };
}

function options(discarded: unknown[]): DedicatedLockOptions {
  return {
    queryTimeoutMs: 50,
    discard: (connection) => discarded.push(connection),
    description: 'test lock',
  };
}

const never = (): Promise<never> => new Promise(() => undefined);

describe('tryLockOnDedicatedConnection', () => {
  it('returns null and releases the runner when the lock is taken elsewhere', async () => {
    const db = scriptedRunner({ lock: async () => [{ locked: false }] });
    expect(
      await tryLockOnDedicatedConnection(db.dataSource, 1, STATEMENTS, options([])),
    ).toBeNull();
    expect(db.released()).toBe(1);
  });

  it('rejects and releases the runner when the lock statement fails or answers NULL', async () => {
    const failing = scriptedRunner({
      lock: () => Promise.reject(new Error('boom')),
    });
    await expect(
      tryLockOnDedicatedConnection(failing.dataSource, 1, STATEMENTS, options([])),
    ).rejects.toThrow('boom');
    expect(failing.released()).toBe(1);

    const nullish = scriptedRunner({ lock: async () => [{ locked: null }] });
    await expect(
      tryLockOnDedicatedConnection(nullish.dataSource, 1, STATEMENTS, options([])),
    ).rejects.toThrow(/no result/);
    expect(nullish.released()).toBe(1);
  });

  it('destroys the connection (never pools it) when the lock statement fails or hangs', async () => {
    // A session advisory lock survives a failed or timed-out statement: the server may hold it.
    for (const lock of [() => Promise.reject(new Error('boom')), never]) {
      const db = scriptedRunner({ lock });
      const discarded: unknown[] = [];
      await expect(
        tryLockOnDedicatedConnection(db.dataSource, 1, STATEMENTS, options(discarded)),
      ).rejects.toThrow(/boom|timed out/);
      expect(discarded).toEqual([db.connection]);
      expect(() => db.connection.emit('error', new Error('late'))).not.toThrow();
    }
  });

  it('bounds connect(), and releases a connection that arrives after the timeout', async () => {
    let arrive!: () => void;
    const late = new Promise<void>((resolve) => (arrive = resolve));
    const db = scriptedRunner({ lock: async () => [{ locked: true }] }, () => late);
    await expect(
      tryLockOnDedicatedConnection(db.dataSource, 1, STATEMENTS, options([])),
    ).rejects.toThrow(/timed out/);
    expect(db.calls).toEqual([]);
    arrive();
    await vi.waitFor(() => expect(db.released()).toBe(1));
  });

  it('reads mysql-style 1/0 answers', async () => {
    const db = scriptedRunner({
      lock: async () => [{ locked: 1 }],
      check: async () => [{ held: 0 }],
    });
    const lock = await tryLockOnDedicatedConnection(db.dataSource, 1, STATEMENTS, options([]));
    expect(await lock?.isHeld()).toBe(false);
  });
});

describe('a dedicated-connection lock', () => {
  async function takeLock(answers: Record<string, Answer>) {
    const db = scriptedRunner({
      lock: async () => [{ locked: true }],
      ...answers,
    });
    const discarded: unknown[] = [];
    const lock = await tryLockOnDedicatedConnection(
      db.dataSource,
      1,
      STATEMENTS,
      options(discarded),
    );
    if (!lock) throw new Error('expected the lock');
    return { ...db, lock, discarded };
  }

  it('guards the driver connection while held and unguards it after a clean release', async () => {
    const { lock, connection, discarded, released } = await takeLock({
      check: async () => [{ held: true }],
      unlock: async () => [{ unlocked: true }],
    });
    expect(connection.listenerCount('error')).toBe(1);
    expect(await lock.isHeld()).toBe(true);
    await lock.release();
    expect(connection.listenerCount('error')).toBe(0);
    expect(discarded).toEqual([]);
    expect(released()).toBe(1);
  });

  it('turns isHeld false on a driver error event, without crashing, and skips the unlock', async () => {
    const { lock, connection, calls, discarded, released } = await takeLock({
      check: async () => [{ held: true }],
      unlock: async () => [{ unlocked: true }],
    });
    // Without a listener this emit would throw.
    connection.emit('error', new Error('connection killed'));
    expect(await lock.isHeld()).toBe(false);
    await lock.release();
    expect(calls).not.toContain('unlock');
    expect(discarded).toEqual([connection]);
    expect(released()).toBe(1);
    // The dead connection stays guarded against late errors.
    expect(() => connection.emit('error', new Error('late'))).not.toThrow();
  });

  it('answers false when the check hangs past the timeout', async () => {
    const { lock } = await takeLock({ check: never });
    expect(await lock.isHeld()).toBe(false);
  });

  it('discards the connection instead of pooling it when the unlock hangs or fails', async () => {
    for (const unlock of [never, () => Promise.reject(new Error('nope'))]) {
      const { lock, connection, discarded, released } = await takeLock({
        unlock,
      });
      await lock.release();
      expect(discarded).toEqual([connection]);
      expect(released()).toBe(1);
    }
  });

  it('runs the unlock once however often release is called', async () => {
    const { lock, calls, released } = await takeLock({
      unlock: async () => [{}],
    });
    await Promise.all([lock.release(), lock.release()]);
    await lock.release();
    expect(calls.filter((sql) => sql === 'unlock')).toHaveLength(1);
    expect(released()).toBe(1);
    expect(await lock.isHeld()).toBe(false);
  });
});
