/** The driver module locks/held-lock-ids.ts imports for each scheme of --database-url. */
const DRIVERS: Record<string, { module: string; npmPackage: string }> = {
  postgres: { module: 'pg', npmPackage: 'pg' },
  postgresql: { module: 'pg', npmPackage: 'pg' },
  mysql: { module: 'mysql2/promise', npmPackage: 'mysql2' },
  mariadb: { module: 'mysql2/promise', npmPackage: 'mysql2' },
};

/**
 * Checks, before anything connects, that `pool --database-url` can work: a scheme we read, and
 * its driver installed where this package resolves it (the drivers are optional: only `pool`
 * loads one, on demand). Resolving does not load the driver; held-lock-ids.ts does that later.
 * The URL itself is never echoed: it may hold a password.
 */
export function checkDatabaseDriver(
  url: string,
  resolve: (specifier: string) => string = (specifier) => import.meta.resolve(specifier),
): void {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  const driver = scheme === undefined ? undefined : DRIVERS[scheme];
  if (!driver)
    throw new Error(
      `--database-url must start with postgres://, postgresql://, mysql:// or mariadb://, got ${scheme === undefined ? 'no scheme' : `'${scheme}://'`}`,
    );
  try {
    resolve(driver.module);
  } catch (error) {
    const missing =
      (error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND' &&
      (error as Error).message.includes(`'${driver.npmPackage}'`);
    if (!missing) throw error;
    throw new Error(
      `pool --database-url ${scheme}://… needs the '${driver.npmPackage}' package: npm install ${driver.npmPackage}`,
    );
  }
}
