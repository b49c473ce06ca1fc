import type {
  BroadcastLogFields,
  BroadcastLogger,
} from '../interfaces/broadcast-logger.interface.js';

/**
 * Adds the instance's current group and lock id to the fields of every warning and error, so
 * each one carries them as data whichever part of the engine wrote it. Undefined fields are
 * left out; a line without fields of its own gets the context alone.
 */
export function withContextFields(
  logger: BroadcastLogger,
  context: () => BroadcastLogFields,
): BroadcastLogger {
  const fields = (own: BroadcastLogFields | undefined) => {
    const merged: Record<string, string | number | boolean> = {};
    for (const [key, value] of Object.entries({ ...context(), ...own }))
      if (value !== undefined && value !== null) merged[key] = value;
    return merged;
  };
  return {
    log: (message, own) => (own ? logger.log(message, own) : logger.log(message)),
    warn: (message, own) => logger.warn(message, fields(own)),
    error: (message, stack, own) => logger.error(message, stack, fields(own)),
    ...(logger.debug && {
      debug: (message: string, own?: BroadcastLogFields) =>
        own ? logger.debug!(message, own) : logger.debug!(message),
    }),
  };
}
