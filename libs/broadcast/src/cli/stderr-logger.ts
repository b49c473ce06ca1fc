import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';

/** The library's logger for the CLI: warnings and errors on stderr (stdout stays the command's output). */
export const stderrLogger: BroadcastLogger = {
  log: () => undefined,
  warn: (message) => void process.stderr.write(`warning: ${message}\n`),
  error: (message) => void process.stderr.write(`error: ${message}\n`),
};
