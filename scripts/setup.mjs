#!/usr/bin/env node
// Prepares what the README's two commands need, then lets them run (package.json):
//
//   npm run demo   node scripts/setup.mjs demo && node scripts/demo.mjs
//   npm test       node scripts/setup.mjs test && vitest run
//
//   demo      Node 24; `npm ci` when node_modules is missing or does not match package-lock.json;
//             a Kafka broker, or Java 17+ (and Maven for the first download) to start one.
//   test      the same, and PostgreSQL and MariaDB on 127.0.0.1, started if they do not answer
//             (needs root and the servers installed, as on the CI machine).
//   install   Node 24 and the `npm ci` step alone (`--clean`: always, as .ci/run wants).
//   services  the databases alone (.ci/run).
//
//   `test` also puts @confluentinc/kafka-javascript into node_modules when it is not there
//   (scripts/confluent-client.mjs: built once per machine, minutes; then copied in).
//
// Plain Node and no dependencies: it runs in a fresh clone, before `npm ci`, and on an older Node
// (to say that Node 24 is needed). Whatever is missing ends in one line saying what to do, exit 1.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureConfluentClient, ensureNodeModules } from './setup/node-modules.mjs';
import { SetupError, checkBroker, checkNode } from './setup/prerequisites.mjs';
import { ensureMariaDB, ensurePostgres } from './setup/services.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const STEPS = {
  demo: ['node', 'install', 'broker'],
  test: ['node', 'install', 'confluent', 'services', 'broker'],
  install: ['node', 'install'],
  services: ['services'],
};

async function main(command = '', flags = []) {
  const steps = STEPS[command];
  if (!steps) throw new SetupError(`usage: node scripts/setup.mjs ${Object.keys(STEPS).join('|')}`);
  const say = (line) => console.error(`setup: ${line}`);
  for (const step of steps) {
    if (step === 'node') checkNode();
    if (step === 'install') ensureNodeModules(ROOT, { always: flags.includes('--clean') });
    if (step === 'confluent') ensureConfluentClient(ROOT);
    if (step === 'services') {
      say(await ensurePostgres(say));
      say(await ensureMariaDB(say));
    }
    if (step === 'broker') say(await checkBroker(ROOT));
  }
}

const [command, ...flags] = process.argv.slice(2);
try {
  await main(command, flags);
} catch (error) {
  if (!(error instanceof SetupError)) throw error;
  const what = { demo: 'npm run demo', test: 'npm test' }[command] ?? `setup ${command ?? ''}`;
  console.error(`\n${what}: ${error.message}\n`);
  process.exitCode = 1;
}
