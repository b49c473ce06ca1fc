import type { AdvisoryLockProvider } from './advisory-lock.interface.js';
import type { BroadcastLogger } from './broadcast-logger.interface.js';

/** What the engine hands a lock factory when it starts. */
export interface AdvisoryLockContext {
  /** Keeps this app's locks apart from other apps': `<topicPrefix><groupBaseName>`. */
  readonly namespace: string;
  readonly logger: BroadcastLogger;
}

/**
 * Builds the lock provider once the engine knows its lock namespace. `pgAdvisoryLocks(pool)` and
 * `mysqlAdvisoryLocks(pool)` from `nestjs-kafka-broadcast/locks` return one.
 */
export type AdvisoryLockFactory = (context: AdvisoryLockContext) => AdvisoryLockProvider;
