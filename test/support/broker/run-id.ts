import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** comma-separated '127.0.0.1:port' list of the broker this run uses */
    kafkaBrokers: string;
    /** unique per `vitest run`; prefixes every topic and group the run creates */
    runId: string;
  }
}

/**
 * A fresh id per test run: 'r' + base-36 milliseconds + 4 random base-36 chars.
 * Names built from it never collide with an earlier run against the same long-lived broker.
 */
export function createRunId(): string {
  const random = Math.floor(Math.random() * 36 ** 4)
    .toString(36)
    .padStart(4, '0');
  return `r${Date.now().toString(36)}${random}`;
}

/** This run's id, as provided by test/global-setup.ts. */
export function runId(): string {
  return inject('runId') || process.env.TEST_RUN_ID || 'rlocal';
}
