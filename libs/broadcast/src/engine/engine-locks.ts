import { DEFAULT_LOCKED_GROUP_BASE } from '../core/options/broadcast.defaults.js';
import type { ResolvedBroadcastOptions } from '../core/options/broadcast-options.resolver.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import { createAdvisoryLockProvider } from '../locks/advisory-lock.factory.js';
import type { LockBinding } from '../locks/lock-binding.js';
import { LockFreeProvider } from '../locks/lock-free.js';
import type { LockSessionSource } from '../locks/lock-session.js';

/**
 * Binds the lock provider the options ask for: none (`lock: false`), the one given
 * (`lock.provider`, or a factory of one), otherwise advisory locks through the TypeORM
 * DataSource, lock-free with a warning when there is none. `dataSource` is a function because
 * the application's DataSource may exist only by start(); it is called only when needed.
 */
export function bindEngineLocks(
  locks: LockBinding,
  o: ResolvedBroadcastOptions,
  dataSource: () => LockSessionSource | undefined,
  logger: BroadcastLogger,
): void {
  if (o.lock === false) return locks.bind(new LockFreeProvider());
  const namespace = o.topicPrefix + (o.groupBaseName ?? DEFAULT_LOCKED_GROUP_BASE);
  const { provider } = o.lock;
  if (provider) {
    return locks.bind(typeof provider === 'function' ? provider({ namespace, logger }) : provider);
  }
  const source = dataSource();
  if (!source)
    logger.warn('No TypeORM DataSource is available for broadcast locks; running lock-free.', {
      reason: 'no DataSource',
    });
  locks.bind(createAdvisoryLockProvider(source, namespace, logger));
}
