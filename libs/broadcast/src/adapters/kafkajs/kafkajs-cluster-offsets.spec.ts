// The admin's own kafkajs Cluster reads every topic's high watermarks at once: found on the real
// kafkajs (no connection is made), and driven over a scripted Cluster.
import kafkajs from 'kafkajs';
import {
  adminWithCluster,
  clusterHasLeaders,
  readHighWatermarks,
  type AdminWithCluster,
} from './kafkajs-cluster-offsets.js';

type Cluster = NonNullable<AdminWithCluster['cluster']>;

function scriptedCluster(partitions: Record<string, number[]>, missing?: string) {
  const calls: string[] = [];
  const cluster: Cluster = {
    targetTopics: new Set(),
    addMultipleTargetTopics: async (topics) => {
      calls.push(`target ${topics.join(',')}`);
      if (missing && topics.includes(missing))
        throw Object.assign(new Error('unknown'), { type: 'UNKNOWN_TOPIC_OR_PARTITION' });
    },
    refreshMetadata: async () => void calls.push('refresh'),
    findTopicPartitionMetadata: (topic) =>
      (partitions[topic] ?? []).map((p) => ({ partitionId: p, leader: 1 })),
    fetchTopicsOffset: async (request) => {
      calls.push(`listOffsets ${JSON.stringify(request)}`);
      return request.map(({ topic, partitions: ps }) => ({
        topic,
        partitions: ps.map(({ partition }) => ({ partition, offset: `${partition * 10}` })),
      }));
    },
  };
  return { cluster, calls };
}

describe('the admin Cluster path of the offsets snapshot', () => {
  it('finds the Cluster kafkajs makes for an admin, and puts its factory back', () => {
    const kafka = new kafkajs.Kafka({
      brokers: ['127.0.0.1:1'],
      logLevel: kafkajs.logLevel.NOTHING,
    });
    const key = Object.getOwnPropertySymbols(kafka).find(
      (s) => s.description === 'private:Kafka:createCluster',
    )!;
    const factory = (kafka as unknown as Record<symbol, unknown>)[key];
    const { admin, cluster } = adminWithCluster(kafka);
    expect(typeof admin.connect).toBe('function');
    expect(cluster).toBeDefined();
    expect((kafka as unknown as Record<symbol, unknown>)[key]).toBe(factory);
  });

  it('asks for the latest offsets of all topics in one call, never the earliest', async () => {
    const { cluster, calls } = scriptedCluster({ a: [0, 1], b: [0] });
    await clusterHasLeaders(cluster, ['a', 'b']);
    const offsets = await readHighWatermarks(cluster, ['a', 'b'], false);
    expect(offsets).toEqual(
      new Map([
        [
          'a',
          new Map([
            [0, '0'],
            [1, '10'],
          ]),
        ],
        ['b', new Map([[0, '0']])],
      ]),
    );
    // The metadata just read by the topic check serves the snapshot.
    expect(calls).toEqual([
      'target a,b',
      'target a,b',
      `listOffsets ${JSON.stringify([
        { topic: 'a', fromBeginning: false, partitions: [{ partition: 0 }, { partition: 1 }] },
        { topic: 'b', fromBeginning: false, partitions: [{ partition: 0 }] },
      ])}`,
    ]);
  });

  it('re-reads metadata when retrying, or when nothing read it just before', async () => {
    const retrying = scriptedCluster({ a: [0] });
    await clusterHasLeaders(retrying.cluster, ['a']);
    await readHighWatermarks(retrying.cluster, ['a'], true);
    expect(retrying.calls).toContain('refresh');
    const later = scriptedCluster({ a: [0] });
    await readHighWatermarks(later.cluster, ['a'], false);
    expect(later.calls).toContain('refresh');
  });

  it('says a topic is missing instead of failing', async () => {
    const { cluster } = scriptedCluster({ a: [0] }, 'b');
    await expect(clusterHasLeaders(cluster, ['a', 'b'])).resolves.toBe(false);
    await expect(clusterHasLeaders(scriptedCluster({ a: [0] }).cluster, ['a'])).resolves.toBe(true);
  });
});
