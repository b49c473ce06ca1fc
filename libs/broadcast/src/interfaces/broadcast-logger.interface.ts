/** The subset of Nest's LoggerService the engine writes to. */
export interface BroadcastLogger {
  log(message: string): void;
  warn(message: string): void;
  error(message: string, stack?: string): void;
  debug?(message: string): void;
}
