// What the start-up children (startup-child.mjs, startup-child.cjs's ESM twin, startup-nest-child.mjs)
// share: the module options the spec hands over in env STARTUP_OPTIONS (JSON), with the advisory
// locks of a plain `pg` pool added when STARTUP_PG_LOCKS is set (a function cannot travel as JSON).
import pg from 'pg';

/** The options for `locksEntry` (the built `nestjs-kafka-broadcast/locks` URL). */
export async function startupOptions(locksEntry) {
  const options = JSON.parse(process.env.STARTUP_OPTIONS);
  if (!process.env.STARTUP_PG_LOCKS) return options;
  const { pgAdvisoryLocks } = await import(locksEntry);
  const pool = new pg.Pool({
    host: '127.0.0.1',
    port: 5432,
    user: 'postgres',
    database: 'test',
    application_name: process.env.STARTUP_PG_LOCKS,
  });
  return { ...options, lock: { ...options.lock, provider: pgAdvisoryLocks(pool) } };
}
