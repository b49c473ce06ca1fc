import type {
  BroadcastLogFields,
  BroadcastLogger,
} from '../interfaces/broadcast-logger.interface.js';

const withFields = (fields: BroadcastLogFields | undefined) =>
  fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';

/**
 * The engine's logger when none is given (the engine used without Nest): one console line per
 * message, its fields as JSON after it so they stay machine-readable.
 */
export const consoleLogger: BroadcastLogger = {
  log: (m, f) => console.log(`[broadcast] ${m}${withFields(f)}`),
  warn: (m, f) => console.warn(`[broadcast] ${m}${withFields(f)}`),
  error: (m, stack, f) =>
    console.error(`[broadcast] ${m}${withFields(f)}${stack ? `\n${stack}` : ''}`),
};
