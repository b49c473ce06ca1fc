// The one capturing logger of the tests: the engine's BroadcastLogger (engine, seam and fault
// harnesses) and Nest's LoggerService (`h.create(metadata, { logger })`, `app.useLogger`) alike.
// It records every line, so tests assert on levels and patterns and dump the lines on failure.
import type { LoggerService } from '@nestjs/common';
import type { BroadcastLogger } from 'nestjs-kafka-broadcast';

export interface LogLine {
  level: 'log' | 'warn' | 'error' | 'debug' | 'verbose' | 'fatal';
  message: string;
  /** Nest's context (the last string argument that is not a stack). */
  context?: string;
  at: number;
}

export class CapturingLogger implements BroadcastLogger, LoggerService {
  readonly lines: LogLine[] = [];

  /**
   * @param label names the logger in dumps
   * @param options.echoErrors also print error lines as they come (default: only on dump)
   */
  constructor(
    readonly label = '',
    private readonly options: { echoErrors?: boolean } = {},
  ) {}

  log(message: unknown, ...rest: unknown[]): void {
    this.push('log', message, rest);
  }

  warn(message: unknown, ...rest: unknown[]): void {
    this.push('warn', message, rest);
  }

  /** The engine passes (message, stack?, fields?); Nest (message, stack?, context?). */
  error(message: unknown, ...rest: unknown[]): void {
    this.push('error', message, rest);
    if (this.options.echoErrors) console.error(String(message), ...rest);
  }

  debug(message: unknown, ...rest: unknown[]): void {
    this.push('debug', message, rest);
  }

  verbose(message: unknown, ...rest: unknown[]): void {
    this.push('verbose', message, rest);
  }

  fatal(message: unknown, ...rest: unknown[]): void {
    this.push('fatal', message, rest);
  }

  get warnings(): string[] {
    return this.lines.filter((l) => l.level === 'warn').map((l) => l.message);
  }

  get errors(): string[] {
    return this.lines.filter((l) => l.level === 'error').map((l) => l.message);
  }

  /** Lines of `level` (any level when omitted) whose message matches `pattern`. */
  matching(pattern: RegExp, level?: LogLine['level']): string[] {
    return this.find(level, pattern).map((l) => l.message);
  }

  /** The whole lines of `level` (any level when undefined) whose message matches `pattern`. */
  find(level: LogLine['level'] | undefined, pattern: RegExp): LogLine[] {
    return this.lines.filter((l) => (!level || l.level === level) && pattern.test(l.message));
  }

  /** Every line since `since` (epoch ms) as text, for a failure report. */
  dump(since = 0): string {
    return this.lines
      .filter((l) => l.at >= since)
      .map((l) => {
        const context = l.context ? ` [${l.context}]` : '';
        const at = new Date(l.at).toISOString().slice(11, 23);
        return `${at} ${this.label} ${l.level.toUpperCase()}${context} ${l.message}`;
      })
      .join('\n');
  }

  private push(level: LogLine['level'], message: unknown, rest: unknown[]): void {
    const strings = rest.filter((r): r is string => typeof r === 'string');
    // A stack spans lines; a context never does.
    const stack = strings.find((s) => s.includes('\n'));
    const context = strings.filter((s) => s !== stack).pop();
    const text = typeof message === 'string' ? message : String(message);
    this.lines.push({
      level,
      message: stack ? `${text}\n${stack}` : text,
      ...(context !== undefined && { context }),
      at: Date.now(),
    });
  }
}
