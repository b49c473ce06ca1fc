import type { AdvisoryLockProvider } from '../interfaces/advisory-lock.interface.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import type { LockSessionSource } from './lock-session.js';
import { LockFreeProvider } from './lock-free.js';
import { MysqlAdvisoryLockProvider } from './mysql-advisory-lock.js';
import { PostgresAdvisoryLockProvider } from './postgres-advisory-lock.js';

export { lockNamespaceKey } from './lock-keys.js';

/**
 * Picks the advisory-lock provider for a TypeORM DataSource: postgres → PostgreSQL advisory locks,
 * mysql/mariadb → MySQL user locks, no DataSource → lock-free, any other driver → lock-free with one warning.
 */
export function createAdvisoryLockProvider(
  dataSource: LockSessionSource | undefined,
  namespace: string,
  logger: BroadcastLogger,
): AdvisoryLockProvider {
  if (!dataSource) return new LockFreeProvider();
  const type = dataSource.options?.type;
  switch (type) {
    case 'postgres':
      return new PostgresAdvisoryLockProvider(dataSource, namespace, {
        logger,
      });
    case 'mysql':
    case 'mariadb':
      return new MysqlAdvisoryLockProvider(dataSource, namespace, { logger });
    default:
      // e.g. sqlite has no advisory locks, and cockroachdb accepts pg_try_advisory_lock but ignores it.
      logger.warn(
        `Broadcast: the '${type}' database driver cannot take advisory locks; the broadcast engine runs lock-free.`,
        { reason: 'no advisory locks', driver: String(type) },
      );
      return new LockFreeProvider();
  }
}
