import { BroadcastOptionsError } from '../../errors/broadcast-options.error.js';
import type { BroadcastHandlerOptions } from '../../interfaces/broadcast-failure-policy.interface.js';
import { isObject, positiveInt } from '../options/option-checks.js';

export const DEFAULT_RETRY_BACKOFF_MS = 200;
export const DEFAULT_RETRY_MAX_BACKOFF_MS = 30_000;

/** One handler's failure policy, checked, every default filled in. */
export interface HandlerPolicy {
  /** Calls in all, the first included; 1: no retry. */
  readonly attempts: number;
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
  /** Longest one call is awaited. */
  readonly timeoutMs: number;
}

/** What a handler's options are checked against: the module's timeout and the session. */
export interface PolicyLimits {
  handlerTimeoutMs: number;
  sessionTimeoutMs: number;
}

/**
 * Checks one handler's options; throws BroadcastOptionsError naming the option and the
 * handler, so a bad decorator fails the startup before anything connects.
 */
export function resolveHandlerPolicy(
  handler: string,
  options: BroadcastHandlerOptions,
  limits: PolicyLimits,
): HandlerPolicy {
  const option = (name: string) => `${name} (handler ${handler})`;
  const { retry } = options;
  if (retry !== undefined && !isObject(retry))
    throw new BroadcastOptionsError(
      option('retry'),
      '{ attempts, backoffMs?, maxBackoffMs? }',
      retry,
    );
  const attempts = positiveInt(option('retry.attempts'), retry?.attempts, 1, 100);
  const backoffMs = positiveInt(
    option('retry.backoffMs'),
    retry?.backoffMs,
    DEFAULT_RETRY_BACKOFF_MS,
  );
  const maxBackoffMs = positiveInt(
    option('retry.maxBackoffMs'),
    retry?.maxBackoffMs,
    Math.max(backoffMs, DEFAULT_RETRY_MAX_BACKOFF_MS),
  );
  if (maxBackoffMs < backoffMs)
    throw new BroadcastOptionsError(
      option('retry.maxBackoffMs'),
      `an integer ≥ retry.backoffMs (${backoffMs})`,
      maxBackoffMs,
    );
  const timeoutMs = positiveInt(option('timeoutMs'), options.timeoutMs, limits.handlerTimeoutMs);
  // The first call runs while the partition waits, and the consumer heartbeats between records.
  if (timeoutMs >= limits.sessionTimeoutMs)
    throw new BroadcastOptionsError(
      option('timeoutMs'),
      `an integer below consumer.sessionTimeoutMs (${limits.sessionTimeoutMs})`,
      timeoutMs,
    );
  return { attempts, backoffMs, maxBackoffMs, timeoutMs };
}

/** The wait before attempt `failed + 1`: `backoffMs` doubled per earlier retry, capped. */
export function retryDelay(policy: HandlerPolicy, failed: number): number {
  return Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** Math.min(failed - 1, 30));
}
