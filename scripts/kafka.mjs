#!/usr/bin/env node
// CLI for a local Kafka broker that outlives the command (for the demo, benchmarks, CI):
//
//   node scripts/kafka.mjs start [--nodes N]   starts it (or finds it running); last line KAFKA_BROKERS=…
//   node scripts/kafka.mjs status              prints KAFKA_BROKERS=… or exits 1
//   node scripts/kafka.mjs stop                SIGTERM, SIGKILL after 30 s, removes its data
//
// State lives in .kafka/state.json. With KAFKA_BROKERS already set, start/stop leave
// everything alone: somebody else owns that broker.
import { rm, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  clusterAnswers,
  readState,
  resolveVersion,
  startCluster,
  STATE_DIR,
  STATE_FILE,
} from './kafka-cluster.mjs';
import { terminatePid } from './kafka/process.mjs';

const printBrokers = (brokers) =>
  console.log(`KAFKA_BROKERS=${[brokers].flat().join(',')}`);

async function start({ nodes }) {
  if (process.env.KAFKA_BROKERS) return printBrokers(process.env.KAFKA_BROKERS);
  const state = await readState();
  if (state && (await clusterAnswers(state.brokers))) {
    console.error(
      `[kafka] already running (Kafka ${state.version}, pids ${state.nodes.map((n) => n.pid).join(', ')})`,
    );
    if (state.version !== resolveVersion())
      console.error(
        `[kafka] note: Kafka ${resolveVersion()} was asked for; run stop first to switch`,
      );
    return printBrokers(state.brokers);
  }
  if (state) await stopFromState(state, 5_000); // stale: a JVM that no longer answers
  const dir = join(STATE_DIR, 'cluster');
  await rm(dir, { recursive: true, force: true });
  const cluster = await startCluster({ nodes, dir, detached: true });
  await mkdir(STATE_DIR, { recursive: true });
  const { version, brokers, bootstrap } = cluster;
  const saved = {
    version,
    brokers,
    bootstrap,
    dir,
    nodes: cluster.nodes,
    startedAt: new Date().toISOString(),
  };
  await writeFile(STATE_FILE, JSON.stringify(saved, null, 2) + '\n');
  printBrokers(brokers);
}

async function stop() {
  if (process.env.KAFKA_BROKERS) return printBrokers(process.env.KAFKA_BROKERS);
  const state = await readState();
  if (!state)
    return console.error(
      '[kafka] no broker state in .kafka/state.json; nothing to stop',
    );
  await stopFromState(state, 30_000);
  console.error(
    `[kafka] stopped (pids ${state.nodes.map((n) => n.pid).join(', ')})`,
  );
}

async function stopFromState(state, graceMs) {
  await Promise.all(
    state.nodes.map((n) => terminatePid(n.pid, n.config, graceMs)),
  );
  await rm(state.dir, { recursive: true, force: true });
  await rm(STATE_FILE, { force: true });
}

async function status() {
  const brokers =
    process.env.KAFKA_BROKERS?.split(',') ?? (await readState())?.brokers;
  if (brokers && (await clusterAnswers(brokers))) return printBrokers(brokers);
  console.error('[kafka] not running');
  process.exitCode = 1;
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { nodes: { type: 'string', default: '1' } },
});
const commands = { start, stop, status };
const command = commands[positionals[0]];
if (!command) {
  console.error('usage: node scripts/kafka.mjs start|stop|status [--nodes N]');
  process.exit(2);
}
try {
  await command({ nodes: Number(values.nodes) });
} catch (error) {
  console.error(`[kafka] ${positionals[0]} failed: ${error.message}`);
  process.exitCode = 1;
}
