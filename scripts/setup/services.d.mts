/** Types of scripts/setup/services.mjs for the TypeScript tests. */
export function cannotStart(
  name: string,
  options: { root: boolean; tools: Record<string, string | undefined> },
): string | undefined;
export function ensurePostgres(log?: (line: string) => void): Promise<string>;
export function ensureMariaDB(log?: (line: string) => void): Promise<string>;
