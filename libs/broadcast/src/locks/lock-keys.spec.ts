import {
  assertLockId,
  fnv1a32,
  lockNamespaceKey,
  MYSQL_LOCK_NAME_MAX_LENGTH,
  mysqlLockName,
} from './lock-keys.js';

describe('fnv1a32', () => {
  it('matches the published FNV-1a 32-bit test vectors', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });

  it('hashes the UTF-8 bytes', () => {
    expect(fnv1a32('é')).not.toBe(fnv1a32('\u00e9'.normalize('NFD')));
  });
});

describe('lockNamespaceKey', () => {
  it('is the FNV-1a hash as a signed int32', () => {
    expect(lockNamespaceKey('a')).toBe(0xe40c292c - 2 ** 32);
    expect(lockNamespaceKey('a')).toBeLessThan(0);
    expect(lockNamespaceKey('')).toBe(0x811c9dc5 | 0);
  });

  it('always fits int4', () => {
    for (const namespace of ['x', 'broadcast', 'a much longer namespace with spaces', '日本語']) {
      const key = lockNamespaceKey(namespace);
      expect(Number.isInteger(key)).toBe(true);
      expect(key).toBeGreaterThanOrEqual(-(2 ** 31));
      expect(key).toBeLessThan(2 ** 31);
    }
  });
});

describe('mysqlLockName', () => {
  it('is <namespace>-<id> when short enough', () => {
    expect(mysqlLockName('orders', 7)).toBe('orders-7');
  });

  it('keeps a name of exactly 64 characters as is', () => {
    const namespace = 'n'.repeat(MYSQL_LOCK_NAME_MAX_LENGTH - 4);
    expect(mysqlLockName(namespace, 199)).toBe(`${namespace}-199`);
  });

  it('shortens long names to 64 characters with a readable prefix and a stable hash', () => {
    const namespace = `service-${'x'.repeat(100)}`;
    const name = mysqlLockName(namespace, 199);
    expect(name).toHaveLength(MYSQL_LOCK_NAME_MAX_LENGTH);
    expect(name.startsWith('service-xxx')).toBe(true);
    expect(name.endsWith('-199')).toBe(true);
    expect(name).toMatch(/~[0-9a-f]{16}-199$/);
    expect(mysqlLockName(namespace, 199)).toBe(name);
  });

  it('keeps long namespaces that share a prefix apart', () => {
    const base = 'p'.repeat(80);
    expect(mysqlLockName(`${base}-a`, 1)).not.toBe(mysqlLockName(`${base}-b`, 1));
    expect(mysqlLockName(`${base}-a`, 1)).not.toBe(mysqlLockName(`${base}-a`, 2));
  });

  it('counts characters, not UTF-16 units, and never splits a surrogate pair', () => {
    const namespace = '😀'.repeat(70);
    const name = mysqlLockName(namespace, 3);
    expect([...name]).toHaveLength(MYSQL_LOCK_NAME_MAX_LENGTH);
    // A lone surrogate would not survive a UTF-8 round trip.
    expect(Buffer.from(name, 'utf8').toString('utf8')).toBe(name);
  });
});

describe('assertLockId', () => {
  it('accepts int4-compatible non-negative integers', () => {
    expect(() => assertLockId(0)).not.toThrow();
    expect(() => assertLockId(2 ** 31 - 1)).not.toThrow();
  });

  it('rejects negatives, fractions and values beyond int4', () => {
    for (const bad of [-1, 1.5, 2 ** 31, Number.NaN]) {
      expect(() => assertLockId(bad)).toThrow(RangeError);
    }
  });
});
