// The one BroadcastLogger of the in-process test harnesses (engine.ts, seams.ts): records
// every line the engine writes, so tests assert on warn/error lines and dump them on failure.
import type { BroadcastLogger } from 'nestjs-kafka-broadcast';

export interface LogLine {
  level: 'log' | 'warn' | 'error' | 'debug';
  message: string;
  at: number;
}

export class CapturingLogger implements BroadcastLogger {
  readonly lines: LogLine[] = [];

  /** Names the engine in dumps. */
  constructor(readonly label = '') {}

  log(message: string): void {
    this.push('log', message);
  }

  warn(message: string): void {
    this.push('warn', message);
  }

  error(message: string, stack?: string): void {
    this.push('error', stack ? `${message}\n${stack}` : message);
  }

  debug(message: string): void {
    this.push('debug', message);
  }

  get warnings(): string[] {
    return this.lines.filter((l) => l.level === 'warn').map((l) => l.message);
  }

  get errors(): string[] {
    return this.lines.filter((l) => l.level === 'error').map((l) => l.message);
  }

  /** Lines of `level` (any level when omitted) whose message matches `pattern`. */
  matching(pattern: RegExp, level?: LogLine['level']): string[] {
    return this.lines
      .filter((l) => (!level || l.level === level) && pattern.test(l.message))
      .map((l) => l.message);
  }

  dump(since = 0): string {
    return this.lines
      .filter((l) => l.at >= since)
      .map(
        (l) =>
          `${new Date(l.at).toISOString().slice(11, 23)} ${this.label} ${l.level.toUpperCase()} ${l.message}`,
      )
      .join('\n');
  }

  private push(level: LogLine['level'], message: string): void {
    this.lines.push({ level, message, at: Date.now() });
  }
}
