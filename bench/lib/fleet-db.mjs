// Private PostgreSQL and MariaDB servers for the 200-instance lock-mode fleet: every instance
// holds a lock connection (plus its pool), more than the shared servers' max_connections
// (100 / 151) allow. Each runs from a temp dir on a free port and is stopped afterwards.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitUntil(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${what} did not come up in ${timeoutMs} ms`);
    await sleep(300);
  }
}

/** PostgreSQL (run as the postgres OS user, which it insists on), trust auth, database test, max_connections 1000. */
export async function startPrivatePostgres() {
  const bin = join('/usr/lib/postgresql', readdirSync('/usr/lib/postgresql').sort().at(-1), 'bin');
  const dir = mkdtempSync(join(tmpdir(), 'bench-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const port = await freePort();
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  execFileSync(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres'], {
    stdio: 'pipe',
    uid,
    gid,
  });
  const proc = spawn(
    join(bin, 'postgres'),
    [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'max_connections=1000',
      '-c',
      'shared_buffers=64MB',
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
    ],
    { stdio: 'ignore', uid, gid },
  );
  const psql = (sql) =>
    execFileSync('psql', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-Atc', sql], {
      stdio: 'pipe',
    }).toString();
  await waitUntil(() => psql('select 1').trim() === '1', 30_000, 'private PostgreSQL');
  psql('create database test');
  return {
    db: { host: '127.0.0.1', port, user: 'postgres', database: 'test' },
    pid: proc.pid,
    async stop() {
      proc.kill('SIGINT');
      await new Promise((r) => proc.on('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** MariaDB as root with no password, database test, max_connections 1000. */
export async function startPrivateMariadb() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-mariadb-'));
  const data = join(dir, 'data');
  const port = await freePort();
  execFileSync(
    'mariadb-install-db',
    [
      '--no-defaults',
      `--datadir=${data}`,
      '--user=root',
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
    ],
    { stdio: 'pipe' },
  );
  const server = existsSync('/usr/sbin/mariadbd') ? '/usr/sbin/mariadbd' : '/usr/sbin/mysqld';
  const proc = spawn(
    server,
    [
      '--no-defaults',
      `--datadir=${data}`,
      '--user=root',
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      `--socket=${join(dir, 'sock')}`,
      `--pid-file=${join(dir, 'pid')}`,
      '--max-connections=1000',
      '--skip-log-bin',
      '--innodb-buffer-pool-size=32M',
      '--performance-schema=OFF',
    ],
    { stdio: 'ignore' },
  );
  const sql = (q) =>
    execFileSync('mariadb', ['-h127.0.0.1', `-P${port}`, '-uroot', '-e', q], {
      stdio: 'pipe',
    }).toString();
  await waitUntil(() => sql('select 1').includes('1'), 60_000, 'private MariaDB');
  sql(
    "CREATE DATABASE IF NOT EXISTS test; ALTER USER 'root'@'localhost' IDENTIFIED BY ''; CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY ''; GRANT ALL ON *.* TO 'root'@'127.0.0.1';",
  );
  return {
    db: { host: '127.0.0.1', port, user: 'root', password: '', database: 'test' },
    pid: proc.pid,
    async stop() {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.on('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
