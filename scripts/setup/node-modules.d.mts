/** Types of scripts/setup/node-modules.mjs for the TypeScript tests. */
export function staleReason(root: string): string | undefined;
export function ensureNodeModules(root: string, options?: { always?: boolean }): boolean;
export function ensureConfluentClient(root: string): boolean;
