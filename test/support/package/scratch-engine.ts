// Runs code against a scratch install of the built package (scratchInstall in cli.ts), as a
// user's app would: an ESM snippet run by Node in the install's folder, where only the packages
// the install holds resolve.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { kafkaBrokers } from '../broker/kafka.js';
import type { ScratchInstall } from './cli.js';

/** Runs an ESM snippet with Node in the install's folder; `$DIST` is the copy's dist URL. */
export function runScript(
  install: ScratchInstall,
  source: string,
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const dist = pathToFileURL(join(install.entry, '..', '..')).href;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', source.replaceAll('$DIST', dist)],
      {
        cwd: join(install.entry, '..', '..', '..', '..'),
        env: { ...process.env, KAFKA_BROKERS: kafkaBrokers().join(','), ...env },
        timeout: 90_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * A bare engine on the built engine entry: starts, broadcasts one message to itself, stops.
 * Prints `{ received }`, or the startup error's name, option and message. Env: PREFIX (the topic
 * prefix), CLIENT (kafka.client; empty: the engine's own choice).
 */
export const ENGINE_ROUND_TRIP = `
const { BroadcastEngine } = await import('$DIST/engine.js');
const quiet = { log() {}, warn() {}, error() {} };
const client = process.env.CLIENT || undefined;
const engine = new BroadcastEngine(
  { kafka: { brokers: process.env.KAFKA_BROKERS.split(','), client }, topicPrefix: process.env.PREFIX, lock: false },
  { logger: quiet },
);
const received = new Promise((resolve) => engine.on('one.ping', (payload) => resolve(payload)));
try {
  await engine.start();
  await engine.publisher.publish('one.ping', { n: 1 });
  console.log(JSON.stringify({ received: await received }));
} catch (error) {
  console.log(JSON.stringify({ error: error.name, option: error.option, message: error.message }));
} finally {
  await engine.stop();
}
`;
