import type { Admin, Kafka } from 'kafkajs';
import type { TopicOffsets } from '../../interfaces/kafka-port.interface.js';
import { withOwnCluster } from './kafkajs-own-cluster.js';

/**
 * The parts of kafkajs 2.2.4's internal Cluster that read high watermarks for several topics at
 * once. kafkajs's admin asks per topic: a Metadata request each, then a ListOffsets for the latest
 * AND one for the earliest offsets. The admin's own Cluster answers all topics with one Metadata
 * and one ListOffsets per partition leader.
 */
interface ClusterInternals {
  targetTopics: Set<string>;
  addMultipleTargetTopics(topics: string[]): Promise<void>;
  refreshMetadata(): Promise<void>;
  findTopicPartitionMetadata(topic: string): { partitionId: number; leader: number }[];
  fetchTopicsOffset(
    topics: { topic: string; fromBeginning: boolean; partitions: { partition: number }[] }[],
  ): Promise<{ topic: string; partitions: { partition: number; offset: string }[] }[]>;
}

/** An admin, and its Cluster when this kafkajs exposes what readHighWatermarks needs. */
export interface AdminWithCluster {
  admin: Admin;
  cluster: ClusterInternals | undefined;
  /** The admin's own Cluster as kafkajs made it, for cutRequests (kafkajs-own-cluster.ts). */
  own: unknown;
}

/** How long metadata read for the topic check serves the offsets snapshot that follows. */
const METADATA_REUSE_MS = 2_000;
/** When each Cluster last read metadata for our topics (kafkajs's admin keeps no age). */
const metadataReadAt = new WeakMap<ClusterInternals, number>();

/**
 * `kafka.admin()`, keeping the Cluster kafkajs makes for it (see kafkajs-own-cluster.ts). Another
 * kafkajs version without that factory gets the admin alone (and the per-topic path).
 */
export function adminWithCluster(kafka: Kafka): AdminWithCluster {
  const { client: admin, cluster } = withOwnCluster(kafka, () => kafka.admin());
  return { admin, cluster: isClusterInternals(cluster) ? cluster : undefined, own: cluster };
}

function isClusterInternals(value: unknown): value is ClusterInternals {
  const c = value as Partial<Record<keyof ClusterInternals, unknown>> | undefined;
  return (
    c?.targetTopics instanceof Set &&
    typeof c.addMultipleTargetTopics === 'function' &&
    typeof c.refreshMetadata === 'function' &&
    typeof c.findTopicPartitionMetadata === 'function' &&
    typeof c.fetchTopicsOffset === 'function'
  );
}

/**
 * True when every topic exists and every partition has a leader, from one Metadata request for
 * just `topics` (which also serves readHighWatermarks after it); false when one is missing.
 */
export async function clusterHasLeaders(
  cluster: ClusterInternals,
  topics: readonly string[],
): Promise<boolean> {
  try {
    // addMultipleTargetTopics reads metadata only when the set of topics grows: force it otherwise.
    if (topics.every((t) => cluster.targetTopics.has(t))) await cluster.refreshMetadata();
    else await cluster.addMultipleTargetTopics([...topics]);
    metadataReadAt.set(cluster, Date.now());
  } catch (error) {
    // Missing: create it. Just created, no leader yet: wait for one (the caller polls).
    const type = (error as { type?: string }).type;
    if (type === 'UNKNOWN_TOPIC_OR_PARTITION' || type === 'LEADER_NOT_AVAILABLE') return false;
    throw error;
  }
  return topics.every((topic) => {
    const partitions = cluster.findTopicPartitionMetadata(topic);
    return partitions.length > 0 && partitions.every((p) => p.leader >= 0);
  });
}

/**
 * The high watermark of every partition of `topics`, through the admin's connected Cluster.
 * `refresh` re-reads metadata first (after a failure: a leader may have moved). `fromBeginning`:
 * the log start offsets instead (the heartbeat topic's, right after the start snapshot).
 */
export async function readHighWatermarks(
  cluster: ClusterInternals,
  topics: readonly string[],
  refresh: boolean,
  fromBeginning = false,
): Promise<TopicOffsets> {
  await cluster.addMultipleTargetTopics([...topics]);
  // kafkajs's admin reads metadata before every offsets request (new partitions, moved leaders).
  // Right after clusterHasLeaders read it (a start: topic check, lock, delete, snapshot), the
  // snapshot reuses that answer instead.
  const readAt = metadataReadAt.get(cluster);
  if (refresh || readAt === undefined || Date.now() - readAt > METADATA_REUSE_MS) {
    await cluster.refreshMetadata();
    metadataReadAt.set(cluster, Date.now());
  }
  const request = topics.map((topic) => ({
    topic,
    fromBeginning,
    partitions: cluster
      .findTopicPartitionMetadata(topic)
      .map((p) => ({ partition: p.partitionId })),
  }));
  const answered = await cluster.fetchTopicsOffset(request.filter((t) => t.partitions.length > 0));
  const offsets: TopicOffsets = new Map(topics.map((t) => [t, new Map<number, string>()]));
  for (const { topic, partitions } of answered)
    for (const { partition, offset } of partitions) offsets.get(topic)?.set(partition, offset);
  return offsets;
}

/** The parts of kafkajs 2.2.4's Cluster that list groups on the brokers it knows. */
interface ClusterBrokers {
  brokerPool: { brokers: Record<string, unknown> };
  findBroker(target: { nodeId: string }): Promise<{
    listGroups(): Promise<{ groups: { groupId: string; protocolType: string }[] }>;
  }>;
}

/** When each Cluster's brokers were last read for a listing (listGroupsOnKnownBrokers). */
const brokersReadAt = new WeakMap<ClusterInternals, number>();

/**
 * ListGroups on every broker the Cluster knows, all at once, where kafkajs's `admin.listGroups`
 * reads the metadata again on every call (its admin's Cluster keeps none: metadataMaxAge 0) and
 * then asks the brokers one after another. The brokers are those of the metadata read at most
 * `maxAgeMs` ago (consumer.metadataMaxAgeMs; a start's topic check, then its pool listing, moments
 * apart), else of a metadata read now: as Kafka's Java admin finds the brokers for its group
 * listing, from metadata it keeps up to metadata.max.age.ms. `undefined` on a kafkajs without
 * these internals: the caller takes kafkajs's own call, as it does when this one fails (a broker
 * gone since the metadata was read).
 */
export async function listGroupsOnKnownBrokers(
  cluster: ClusterInternals | undefined,
  maxAgeMs: number,
): Promise<{ groups: { groupId: string; protocolType: string }[] } | undefined> {
  const c = cluster as unknown as Partial<ClusterBrokers> | undefined;
  if (!cluster || typeof c?.brokerPool?.brokers !== 'object' || typeof c.findBroker !== 'function')
    return undefined;
  const readAt = Math.max(metadataReadAt.get(cluster) ?? 0, brokersReadAt.get(cluster) ?? 0);
  if (Date.now() - readAt > maxAgeMs) {
    await cluster.refreshMetadata();
    brokersReadAt.set(cluster, Date.now());
  }
  const { findBroker } = c as ClusterBrokers;
  const answers = await Promise.all(
    Object.keys(c.brokerPool.brokers).map(async (nodeId) =>
      (await findBroker.call(cluster, { nodeId })).listGroups(),
    ),
  );
  return { groups: answers.flatMap((answer) => answer.groups) };
}
