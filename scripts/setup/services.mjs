// The databases the suite needs, on 127.0.0.1: PostgreSQL 5432 and MariaDB 3306, started when
// they do not answer, as a CI machine has them installed but not running (PostgreSQL through
// pg_ctlcluster, MariaDB through start-stop-daemon). The one implementation: `npm test` runs it
// through scripts/setup.mjs, and so does .ci/run. Plain Node, no dependencies.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { SetupError, answers } from './prerequisites.mjs';

const WAIT_MS = 60_000;

function which(...commands) {
  for (const command of commands) {
    const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
    if (found.status === 0) return found.stdout.trim();
  }
  return undefined;
}

function run(command, args) {
  try {
    execFileSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(what, ready) {
  const deadline = Date.now() + WAIT_MS;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new SetupError(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Why a stopped service cannot be started here, or undefined if it can be. */
export function cannotStart(name, { root, tools }) {
  const missing = Object.entries(tools)
    .filter(([, path]) => !path)
    .map(([tool]) => tool);
  if (missing.length > 0)
    return `${name} does not answer, and ${missing.join(', ')} (to start it) is not installed`;
  if (!root) return `${name} does not answer, and starting it needs root (this user is not)`;
  return undefined;
}

const isRoot = () => process.getuid?.() === 0;
const SERVICE_HINT =
  'Start it yourself (the suite expects it on 127.0.0.1 with the users README.md names), or run ' +
  'the command as root on a machine where it is installed.';

export async function ensurePostgres(log = console.error) {
  const probe = which('pg_isready');
  const isReady = async () =>
    probe ? run(probe, ['-q', '-h', '127.0.0.1', '-p', '5432']) : answers('127.0.0.1', 5432);
  if (await isReady()) return 'PostgreSQL: running';
  const versions = existsSync('/etc/postgresql') ? readdirSync('/etc/postgresql') : [];
  const version = versions.sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).at(-1);
  const tools = { pg_ctlcluster: which('pg_ctlcluster'), '/etc/postgresql/<version>': version };
  const why = cannotStart('PostgreSQL on 127.0.0.1:5432', { root: isRoot(), tools });
  if (why) throw new SetupError(`${why}. ${SERVICE_HINT}`);
  log(`starting PostgreSQL ${version}`);
  if (!run('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start']))
    throw new SetupError(`pg_ctlcluster ${version} main start failed`);
  await waitUntil('PostgreSQL on 127.0.0.1:5432', isReady);
  return `PostgreSQL: started (${version})`;
}

export async function ensureMariaDB(log = console.error) {
  const admin = which('mariadb-admin', 'mysqladmin');
  // `ping` succeeds whenever the server is up, even if root needs a password.
  const isReady = async () =>
    admin ? run(admin, ['-h127.0.0.1', '-uroot', 'ping']) : answers('127.0.0.1', 3306);
  if (await isReady()) return 'MariaDB: running';
  const daemon = existsSync('/usr/sbin/mariadbd') ? '/usr/sbin/mariadbd' : undefined;
  const tools = { 'start-stop-daemon': which('start-stop-daemon'), '/usr/sbin/mariadbd': daemon };
  const why = cannotStart('MariaDB on 127.0.0.1:3306', { root: isRoot(), tools });
  if (why) throw new SetupError(`${why}. ${SERVICE_HINT}`);
  log('starting MariaDB');
  run('install', ['-d', '-o', 'mysql', '-g', 'mysql', '/run/mysqld']); // its socket and pid file
  if (!run('start-stop-daemon', ['--start', '--oknodo', '--background', '--exec', daemon]))
    throw new SetupError('start-stop-daemon could not start /usr/sbin/mariadbd');
  await waitUntil('MariaDB on 127.0.0.1:3306', isReady);
  return 'MariaDB: started';
}
