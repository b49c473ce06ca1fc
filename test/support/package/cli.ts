// Runs the BUILT operator CLI (dist/cli/main.js of a private build, see ensureLibBuilt) as a
// child process against the run's broker, as `npx nestjs-kafka-broadcast` would.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureLibBuilt } from '../faults/faults.js';
import type { BroadcastKafkaClient } from '../broker/kafka-clients.js';
import { kafkaBrokers } from '../broker/kafka.js';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI entry of a fresh private build of the library. */
export function cliEntry(): string {
  return join(dirname(fileURLToPath(ensureLibBuilt())), 'cli', 'main.js');
}

/** Where and how a CLI command runs. */
export interface CliOptions {
  /** Another copy of the CLI (see scratchInstall); default: the private build's. */
  entry?: string;
  /** The Kafka client the CLI uses (env KAFKA_CLIENT); default: the CLI's own choice. */
  client?: BroadcastKafkaClient;
}

const cliEnv = (client: BroadcastKafkaClient | undefined) => ({
  ...process.env,
  KAFKA_BROKERS: kafkaBrokers().join(','),
  ...(client && { KAFKA_CLIENT: client }),
});

/** Runs one CLI command to completion. */
export function runCli(
  args: readonly string[],
  { timeoutMs = 60_000, entry = cliEntry(), client }: CliOptions & { timeoutMs?: number } = {},
): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [entry, ...args],
      { env: cliEnv(client), timeout: timeoutMs },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Starts a long-running CLI command (tail); the caller waits on its output and ends it. */
export function spawnCli(
  args: readonly string[],
  { entry = cliEntry(), client }: CliOptions = {},
): ChildProcess & { output: () => CliRun } {
  const child = spawn(process.execPath, [entry, ...args], {
    env: cliEnv(client),
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

/** A copy of the built package in a folder of its own, with only some packages beside it. */
export interface ScratchInstall {
  /** The copy's CLI entry, for runCli's `entry`. */
  entry: string;
  /** Puts one more package of the repository's node_modules beside it (a link, as npm would install it). */
  add(name: string): void;
  remove(): void;
}

/**
 * The built package laid out as `npm install nestjs-kafka-broadcast` would, in a folder under the
 * OS temp dir (outside the repository, so nothing resolves from its node_modules), with only
 * `packages` installed beside it: a user's install that lacks every other package.
 */
export function scratchInstall(packages: readonly string[]): ScratchInstall {
  const built = dirname(dirname(fileURLToPath(ensureLibBuilt())));
  const dir = mkdtempSync(join(tmpdir(), 'nkb-cli-'));
  const modules = join(dir, 'node_modules');
  const pkg = join(modules, 'nestjs-kafka-broadcast');
  mkdirSync(pkg, { recursive: true });
  cpSync(join(built, 'package.json'), join(pkg, 'package.json'));
  cpSync(join(built, 'dist'), join(pkg, 'dist'), { recursive: true });
  const add = (name: string) => {
    // A scoped package (@scope/name) sits in its scope's folder.
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(join(REPO_ROOT, 'node_modules', name), join(modules, name));
  };
  for (const name of packages) add(name);
  return {
    entry: join(pkg, 'dist', 'cli', 'main.js'),
    add,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
