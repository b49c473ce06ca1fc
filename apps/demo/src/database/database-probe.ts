import pg from 'pg';
import { DemoConfigError, LOCAL_DATABASE_URL, type DatabaseChoice } from '../config.js';

const PROBE_TIMEOUT_MS = 2_000;
const DISABLED = new Set(['none', 'off', 'false']);

/**
 * Picks the database before the Nest module is built:
 * - DATABASE_URL=postgres://… → that database (it must answer, or startup fails);
 * - DATABASE_URL=none → no database (lock-free, in-memory products);
 * - unset → the local PostgreSQL (postgres@127.0.0.1:5432/test) if it answers, else none.
 */
export async function chooseDatabase(
  env: NodeJS.ProcessEnv = process.env,
): Promise<DatabaseChoice | undefined> {
  const url = env.DATABASE_URL?.trim();
  if (url && DISABLED.has(url.toLowerCase())) return undefined;
  if (url) {
    if (!/^postgres(ql)?:\/\//i.test(url)) {
      throw new DemoConfigError(
        `DATABASE_URL must be a postgres:// URL (or 'none'), got '${redact(url)}'`,
      );
    }
    const problem = await probe(url);
    if (problem)
      throw new DemoConfigError(
        `DATABASE_URL ${redact(url)} does not answer: ${problem}. Check DATABASE_URL: it holds the products and the broadcast advisory locks (the module's lock.dataSource).`,
      );
    return { url, source: 'DATABASE_URL' };
  }
  return (await probe(LOCAL_DATABASE_URL))
    ? undefined
    : { url: LOCAL_DATABASE_URL, source: 'local' };
}

/** One quick connection and `SELECT 1`; resolves an error message, or undefined when it answers. */
async function probe(url: string): Promise<string | undefined> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: PROBE_TIMEOUT_MS,
    query_timeout: PROBE_TIMEOUT_MS,
  });
  client.on('error', () => {}); // a late socket error must not crash the process
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message || error.constructor.name : String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

/** The URL without its password, for logs. */
export function redact(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}
