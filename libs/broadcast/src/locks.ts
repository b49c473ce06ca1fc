// `nestjs-kafka-broadcast/locks`: advisory locks on a plain `pg` or `mysql2/promise` pool, for apps
// without TypeORM. Neither driver is imported here; the pools are handed in.
export { pgAdvisoryLocks, type PgPoolClientLike, type PgPoolLike } from './locks/pg-pool.js';
export {
  mysqlAdvisoryLocks,
  type Mysql2PoolConnectionLike,
  type Mysql2PoolLike,
} from './locks/mysql2-pool.js';
export type { DatabaseLockProviderOptions } from './locks/connection-held-lock.js';
export type * from './interfaces/advisory-lock.interface.js';
export type * from './interfaces/advisory-lock-factory.interface.js';
export type { BroadcastLogger } from './interfaces/broadcast-logger.interface.js';
