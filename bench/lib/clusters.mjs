// Fresh Kafka clusters for the benches that need their own (fleet, production defaults):
// benchCluster('single') has the test settings, benchCluster('three') 3 nodes with broker
// defaults; productionCluster() is the latter made ready for timing one start.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster } from '../../scripts/kafka-cluster.mjs';
import { now, round, startRawConsumer } from './common.mjs';
import { createTopics } from './fleet.mjs';
import { engineTopics } from './ours.mjs';

/** Broker defaults of a production cluster, where the test settings differ from them. */
export const PRODUCTION_DEFAULTS = Object.freeze({
  'group.initial.rebalance.delay.ms': 3000,
  'offsets.topic.num.partitions': 50,
  'offsets.topic.replication.factor': 3,
  'transaction.state.log.replication.factor': 3,
  'transaction.state.log.min.isr': 2,
  'default.replication.factor': 3,
  'min.insync.replicas': 2,
  'share.coordinator.state.topic.replication.factor': 3,
  'share.coordinator.state.topic.min.isr': 2,
});

/** A fresh cluster for one bench run: `single` (test settings) or `three` (broker defaults). */
export async function benchCluster(kind) {
  const dir = await mkdtemp(join(tmpdir(), `bench-kafka-${kind}-`));
  if (kind === 'single') return startCluster({ nodes: 1, dir, quiet: true });
  return startCluster({ nodes: 3, dir, quiet: true, properties: () => PRODUCTION_DEFAULTS });
}

/**
 * benchCluster('three') with its one-off costs paid before any clock runs: the first group
 * coordinator lookup creates __consumer_offsets (50 partitions, replication 3), so one throwaway
 * raw kafkajs start under `<prefix>warmup-` takes that. Resolves with the cluster (`brokers`,
 * `stop()`), `startupMs` (the cluster's own start) and `warmupMs` (that throwaway start).
 */
export async function productionCluster(prefix, topic = 'events') {
  const t0 = now();
  const cluster = await benchCluster('three');
  const startupMs = round(now() - t0);
  try {
    return Object.assign(cluster, { startupMs, warmupMs: await warmUp(cluster, prefix, topic) });
  } catch (error) {
    await cluster.stop().catch(() => undefined);
    throw error;
  }
}

/**
 * One throwaway raw kafkajs start under `<prefix>warmup-` on a fresh cluster: its first group
 * coordinator lookup creates __consumer_offsets, which the first timed start would pay otherwise.
 * Resolves with that start's ms.
 */
export async function warmUp(cluster, prefix, topic = 'events') {
  const warm = `${prefix}warmup-`;
  const topics = engineTopics(warm, topic);
  await createTopics(cluster.brokers, topics);
  const t1 = now();
  const raw = startRawConsumer({ brokers: cluster.brokers, prefix: warm, topics });
  await raw.ready;
  await raw.stop();
  return round(now() - t1);
}
