export { createAdvisoryLockProvider, lockNamespaceKey } from './advisory-lock.factory.js';
export {
  DEFAULT_LOCK_QUERY_TIMEOUT_MS,
  type DatabaseLockProviderOptions,
} from './connection-held-lock.js';
export { LockFreeProvider } from './lock-free.js';
export { MAX_LOCK_ID, MYSQL_LOCK_NAME_MAX_LENGTH, fnv1a32, mysqlLockName } from './lock-keys.js';
export { MysqlAdvisoryLockProvider } from './mysql-advisory-lock.js';
export { PostgresAdvisoryLockProvider } from './postgres-advisory-lock.js';
