/** Types of scripts/confluent/build.mjs for the TypeScript tests. */
export declare const NEEDS: string;
export function missingPrerequisites(env?: NodeJS.ProcessEnv): string | undefined;
export function causeLines(log: string, max?: number): string[];
export function failureReport(failure: { step: string; log: string; logPath: string }): string;
export function build(target: string, say: (line: string) => void): void;
export function prune(dir: string): void;
export function loads(dir: string): true | string;
