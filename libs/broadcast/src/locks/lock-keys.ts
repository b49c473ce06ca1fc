import { createHash } from 'node:crypto';

/** MySQL refuses user-lock names longer than 64 characters (ER_USER_LOCK_WRONG_NAME). */
export const MYSQL_LOCK_NAME_MAX_LENGTH = 64;

/** Largest id that fits the int4 second key of PostgreSQL's two-key advisory lock form. */
export const MAX_LOCK_ID = 0x7fffffff;

const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
// sha256 prefix length used to shorten long MySQL lock names: 64 bits keeps accidental collisions negligible.
const NAME_HASH_HEX_LENGTH = 16;

/** 32-bit FNV-1a over the UTF-8 bytes of `text`, as an unsigned integer. */
export function fnv1a32(text: string): number {
  let hash = FNV_OFFSET_BASIS;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash = Math.imul(hash ^ byte, FNV_PRIME);
  }
  return hash >>> 0;
}

/**
 * The int4 first key of the PostgreSQL two-key advisory lock form for a namespace:
 * FNV-1a 32-bit reinterpreted as a signed int32, stable across processes and versions.
 */
export function lockNamespaceKey(namespace: string): number {
  return fnv1a32(namespace) | 0;
}

/**
 * The MySQL user-lock name for `id` in `namespace`: `<namespace>-<id>`, or when that exceeds 64 characters,
 * a readable prefix of the namespace, `~`, a hash of the whole namespace, then `-<id>`.
 */
export function mysqlLockName(namespace: string, id: number): string {
  const suffix = `-${id}`;
  const plain = `${namespace}${suffix}`;
  if ([...plain].length <= MYSQL_LOCK_NAME_MAX_LENGTH) return plain;
  const hash = createHash('sha256')
    .update(namespace, 'utf8')
    .digest('hex')
    .slice(0, NAME_HASH_HEX_LENGTH);
  const room = MYSQL_LOCK_NAME_MAX_LENGTH - suffix.length - hash.length - 1;
  // Slice by code points so a surrogate pair is never cut in half.
  const prefix = [...namespace].slice(0, room).join('');
  return `${prefix}~${hash}${suffix}`;
}

/** Throws a RangeError unless `id` is an integer in [0, MAX_LOCK_ID]. */
export function assertLockId(id: number): void {
  if (!Number.isInteger(id) || id < 0 || id > MAX_LOCK_ID) {
    throw new RangeError(`lock id must be an integer in [0, ${MAX_LOCK_ID}], got ${id}`);
  }
}

/** Throws a TypeError unless `namespace` is a non-empty string. */
export function assertNamespace(namespace: string): void {
  if (typeof namespace !== 'string' || namespace.length === 0) {
    throw new TypeError('lock namespace must be a non-empty string');
  }
}
