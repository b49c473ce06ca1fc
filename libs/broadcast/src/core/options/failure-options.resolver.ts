import { BroadcastOptionsError } from '../../errors/broadcast-options.error.js';
import type { HandlerErrorHook } from '../../interfaces/broadcast-failure-policy.interface.js';
import type { BroadcastModuleOptions } from '../../interfaces/broadcast-module-options.interface.js';
import { isObject, nonEmptyName, positiveInt } from './option-checks.js';

export const DEFAULT_MAX_PENDING_RETRIES = 1_000;

/** The module-level failure policy (`onHandlerError`, `deadLetter`, `maxPendingRetries`), checked. */
export interface ResolvedFailureOptions {
  onHandlerError: HandlerErrorHook | undefined;
  /** The logical dead-letter topic, or false. */
  deadLetter: { topic: string } | false;
  maxPendingRetries: number;
}

export function resolveFailureOptions(options: BroadcastModuleOptions): ResolvedFailureOptions {
  const { onHandlerError, deadLetter } = options;
  if (onHandlerError !== undefined && typeof onHandlerError !== 'function')
    throw new BroadcastOptionsError(
      'onHandlerError',
      'a function (error, context)',
      onHandlerError,
    );
  if (deadLetter !== undefined && deadLetter !== false && !isObject(deadLetter))
    throw new BroadcastOptionsError('deadLetter', '{ topic: string } or false', deadLetter);
  return {
    onHandlerError,
    deadLetter:
      deadLetter === undefined || deadLetter === false
        ? false
        : { topic: nonEmptyName('deadLetter.topic', deadLetter.topic) },
    maxPendingRetries: positiveInt(
      'maxPendingRetries',
      options.maxPendingRetries,
      DEFAULT_MAX_PENDING_RETRIES,
      1_000_000,
    ),
  };
}

/**
 * Throws when the dead-letter topic is one the engine reads (a handler's topic, the heartbeat or
 * the receipts topic): every final failure would be broadcast to every instance, fail there
 * again and be dead-lettered again, a loop that grows with the fleet. Checked at start(), once
 * the handlers are known.
 */
export function refuseReadDeadLetterTopic(
  deadLetter: ResolvedFailureOptions['deadLetter'],
  readTopics: readonly string[],
): void {
  if (deadLetter && readTopics.includes(deadLetter.topic))
    throw new BroadcastOptionsError(
      'deadLetter.topic',
      `a topic this engine does not read (not one of ${readTopics.join(', ')})`,
      deadLetter.topic,
    );
}
