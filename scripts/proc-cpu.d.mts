/** Types of scripts/proc-cpu.mjs for the TypeScript tests. */
export function cpuSeconds(pid?: number | 'self'): { own: number; children: number };
