// Runs once per `vitest run`, in the main Vitest process, before any worker starts.
// Finds a Kafka broker for the tests, in this order:
//   1. env KAFKA_BROKERS (CI starts one with scripts/kafka.mjs and exports it);
//   2. the CLI's broker from .kafka/state.json, if it answers (`npm run kafka:start`) and runs
//      the Kafka version asked for (env KAFKA_VERSION, else scripts/kafka/versions.json);
//   3. a fresh single-node broker in a temp dir, stopped again in teardown.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import {
  clusterAnswers,
  readState,
  resolveVersion,
  startCluster,
  type KafkaCluster,
} from '../scripts/kafka-cluster.mjs';
import { createRunId } from './support/broker/run-id.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let owned: KafkaCluster | undefined;
  let brokers = process.env.KAFKA_BROKERS;
  if (!brokers) {
    const state = await readState();
    const usable =
      state && state.version === resolveVersion() && (await clusterAnswers(state.brokers));
    if (usable) brokers = state.brokers.join(',');
  }
  if (!brokers) {
    owned = await startCluster({
      nodes: 1,
      dir: await mkdtemp(join(tmpdir(), 'vitest-kafka-')),
    });
    brokers = owned.bootstrap;
  }
  const runId = createRunId();
  // provide()/inject() is Vitest's documented channel to workers. process.env is set too:
  // Vitest 4 copies the main process's env into workers it spawns after global setup, and
  // child processes that tests spawn (demo apps) inherit it from there.
  project.provide('kafkaBrokers', brokers);
  project.provide('runId', runId);
  process.env.KAFKA_BROKERS = brokers;
  process.env.TEST_RUN_ID = runId;
  return async () => {
    await owned?.stop();
  };
}
