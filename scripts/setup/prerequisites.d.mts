/** Types of scripts/setup/prerequisites.mjs for the TypeScript tests. */
export class SetupError extends Error {}
export const REQUIRED_NODE_MAJOR: number;
export function checkNode(
  version?: string,
  execPath?: string,
  env?: Record<string, string | undefined>,
): void;
export function answers(host: string, port: number, timeoutMs?: number): Promise<boolean>;
export function javaMajor(java: string): number;
export function parseJavaMajor(text: string): number;
export function checkBroker(
  root: string,
  env?: Record<string, string | undefined>,
): Promise<string>;
