import * as D from './broadcast.defaults.js';
import { BroadcastOptionsError } from '../../errors/broadcast-options.error.js';
import type { BroadcastModuleOptions } from '../../interfaces/broadcast-module-options.interface.js';
import { positiveInt } from './option-checks.js';

/** The consumer timings, with the relations between them checked. */
export function resolveConsumer(
  c: NonNullable<BroadcastModuleOptions['consumer']>,
): Required<NonNullable<BroadcastModuleOptions['consumer']>> {
  const sessionTimeoutMs = positiveInt(
    'consumer.sessionTimeoutMs',
    c.sessionTimeoutMs,
    D.DEFAULT_SESSION_TIMEOUT_MS,
  );
  const heartbeatIntervalMs = positiveInt(
    'consumer.heartbeatIntervalMs',
    c.heartbeatIntervalMs,
    // At least 1 ms: a session under 3 ms would otherwise derive an interval of 0.
    Math.max(
      1,
      Math.min(D.DEFAULT_CONSUMER_HEARTBEAT_INTERVAL_MS, Math.floor(sessionTimeoutMs / 3)),
    ),
  );
  if (heartbeatIntervalMs >= sessionTimeoutMs) {
    throw new BroadcastOptionsError(
      'consumer.heartbeatIntervalMs',
      `a number below consumer.sessionTimeoutMs (${sessionTimeoutMs})`,
      heartbeatIntervalMs,
    );
  }
  const maxWaitTimeMs = positiveInt(
    'consumer.maxWaitTimeMs',
    c.maxWaitTimeMs,
    D.DEFAULT_MAX_WAIT_TIME_MS,
  );
  if (maxWaitTimeMs >= sessionTimeoutMs) {
    throw new BroadcastOptionsError(
      'consumer.maxWaitTimeMs',
      `a number below consumer.sessionTimeoutMs (${sessionTimeoutMs})`,
      maxWaitTimeMs,
    );
  }
  const metadataMaxAgeMs = positiveInt(
    'consumer.metadataMaxAgeMs',
    c.metadataMaxAgeMs,
    D.DEFAULT_METADATA_MAX_AGE_MS,
  );
  return {
    sessionTimeoutMs,
    heartbeatIntervalMs,
    maxWaitTimeMs,
    metadataMaxAgeMs,
  };
}
