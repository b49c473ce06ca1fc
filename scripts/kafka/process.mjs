// Starting and stopping Kafka JVMs, without leaving any behind.
import { execFile, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const JAVA = process.env.JAVA_HOME
  ? join(process.env.JAVA_HOME, 'bin', 'java')
  : 'java';
const SETPRIV = '/usr/bin/setpriv';

/**
 * JVM flags for one broker. Serial GC and a small heap: the box has 2 cores and runs the tests
 * too. A small -Xms because the JVM's default initial heap (1/64 of RAM) would be the whole -Xmx.
 */
export function jvmFlags({ heap, logging, extra = [] }) {
  const fromEnv = (process.env.KAFKA_JVM_OPTS ?? '')
    .split(/\s+/)
    .filter(Boolean);
  return [
    `-Xmx${heap}`,
    '-Xms64m',
    '-XX:+UseSerialGC',
    '-Djava.awt.headless=true',
    logging,
    ...extra,
    ...fromEnv,
  ];
}

/** Runs a short-lived Kafka tool (StorageTool calls System.exit, hence its own JVM). */
export function runTool({ libs, flags, main, args }) {
  return new Promise((resolve, reject) => {
    execFile(
      JAVA,
      ['-cp', join(libs, '*'), ...flags, main, ...args],
      { maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        if (error)
          reject(
            new Error(
              `${main} ${args[0]} failed: ${error.message}\n${stdout}${stderr}`.trim(),
            ),
          );
        else resolve(stdout);
      },
    );
  });
}

const live = new Set();
let exitHookInstalled = false;

/**
 * Starts `kafka.Kafka <config>` with stdout/stderr appended to `logFile`.
 * Attached children (the default) die with this process: an 'exit' hook SIGKILLs them, and
 * setpriv's parent-death signal covers the case where this process is killed outright.
 * Detached children (the CLI) outlive it on purpose.
 */
export function launchBroker({
  libs,
  flags,
  config,
  logFile,
  detached = false,
}) {
  const fd = openSync(logFile, 'a');
  const javaArgs = ['-cp', join(libs, '*'), ...flags, 'kafka.Kafka', config];
  const [cmd, args] =
    !detached && existsSync(SETPRIV)
      ? [SETPRIV, ['--pdeathsig', 'KILL', JAVA, ...javaArgs]]
      : [JAVA, javaArgs];
  try {
    const child = spawn(cmd, args, { detached, stdio: ['ignore', fd, fd] });
    if (detached) child.unref();
    else track(child);
    return child;
  } finally {
    closeSync(fd);
  }
}

function track(child) {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const c of live) c.kill('SIGKILL');
  });
}

export function hasExited(child) {
  return child.exitCode !== null || child.signalCode !== null;
}

/** SIGTERM (Kafka then shuts down cleanly), SIGKILL after `graceMs`; resolves once it is gone. */
export async function terminateChild(child, graceMs) {
  if (!child || hasExited(child)) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(resolve, graceMs, 'timeout');
  });
  // Cleared afterwards: a pending timer would keep the caller (e.g. Vitest's main process) alive.
  const outcome = await Promise.race([exited, timeout]).finally(() =>
    clearTimeout(timer),
  );
  if (outcome === 'timeout') {
    child.kill('SIGKILL');
    await exited;
  }
}

export async function killChild(child) {
  if (!child || hasExited(child)) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/**
 * The same for a process we did not spawn in this process (the CLI's detached broker).
 * It is signalled only if its command line is still a Kafka broker using `config`,
 * so a recycled pid is never hit.
 */
export async function terminatePid(pid, config, graceMs) {
  if (!isBroker(pid, config)) return false;
  process.kill(pid, 'SIGTERM');
  if (!(await gone(pid, graceMs))) {
    if (isBroker(pid, config)) process.kill(pid, 'SIGKILL');
    await gone(pid, 5000);
  }
  return true;
}

export function isBroker(pid, config) {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return cmdline.includes('kafka.Kafka') && cmdline.includes(config);
  } catch {
    return false;
  }
}

async function gone(pid, ms) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return !isAlive(pid);
}

function isAlive(pid) {
  try {
    // A zombie (exited, not yet reaped) still answers kill(0); /proc tells them apart.
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The last `lines` lines of a node's log, for error messages. */
export function logTail(logFile, lines = 40) {
  try {
    return readFileSync(logFile, 'utf8')
      .trimEnd()
      .split('\n')
      .slice(-lines)
      .join('\n');
  } catch {
    return '(no log)';
  }
}
