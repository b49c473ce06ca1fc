/**
 * Structured fields of a log line (topic, partition, offset, group, lockId, reason, …), kept as
 * data next to the sentence so JSON loggers can index them.
 */
export type BroadcastLogFields = Readonly<Record<string, string | number | boolean | undefined>>;

/**
 * The subset of Nest's LoggerService the engine writes to. `fields` arrives as an extra
 * argument, which Nest's Logger passes on (its ConsoleLogger prints plain objects as params).
 */
export interface BroadcastLogger {
  log(message: string, fields?: BroadcastLogFields): void;
  warn(message: string, fields?: BroadcastLogFields): void;
  error(message: string, stack?: string, fields?: BroadcastLogFields): void;
  debug?(message: string, fields?: BroadcastLogFields): void;
}
