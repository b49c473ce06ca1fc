// Runs the BUILT operator CLI (dist/cli/main.js of a private build, see ensureLibBuilt) as a
// child process against the run's broker, as `npx nestjs-kafka-broadcast` would.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureLibBuilt } from './faults.js';
import { kafkaBrokers } from './kafka.js';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI entry of a fresh private build of the library. */
export function cliEntry(): string {
  return join(dirname(fileURLToPath(ensureLibBuilt())), 'cli', 'main.js');
}

const cliEnv = () => ({ ...process.env, KAFKA_BROKERS: kafkaBrokers().join(',') });

/** Runs one CLI command to completion. */
export function runCli(args: readonly string[], timeoutMs = 60_000): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cliEntry(), ...args],
      { env: cliEnv(), timeout: timeoutMs },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Starts a long-running CLI command (tail); the caller waits on its output and ends it. */
export function spawnCli(args: readonly string[]): ChildProcess & { output: () => CliRun } {
  const child = spawn(process.execPath, [cliEntry(), ...args], {
    env: cliEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return Object.assign(child, {
    output: () => ({ code: child.exitCode, stdout, stderr }),
  });
}
