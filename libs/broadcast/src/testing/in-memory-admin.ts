import type { LiveGroupMember } from '../interfaces/broadcast-roster.interface.js';
import type {
  DeleteGroupOutcome,
  GroupDescription,
  KafkaAdminPort,
  OffsetBounds,
  TopicOffsets,
} from '../interfaces/kafka-port.interface.js';
import type { InMemoryKafka } from './in-memory-kafka.js';

/** Names of the pool's groups end in `-<n>`, as the kafkajs adapter's roster expects. */
const POOL_GROUP = /-\d+$/;

/** The admin client of an in-memory broker: every call answers from its topics and groups. */
export class InMemoryAdmin implements KafkaAdminPort {
  constructor(private readonly broker: InMemoryKafka) {}

  async ensureTopics(topics: readonly string[]): Promise<void> {
    for (const topic of topics) this.broker.createTopic(topic);
  }

  async deleteGroup(groupId: string): Promise<DeleteGroupOutcome> {
    return this.broker.deleteGroup(groupId);
  }

  async describeGroup(groupId: string): Promise<GroupDescription> {
    const memberIds = this.broker.members(groupId);
    if (!memberIds) return { state: 'Dead', memberIds: [] };
    return { state: memberIds.length > 0 ? 'Stable' : 'Empty', memberIds };
  }

  async latestOffsets(topics: readonly string[]): Promise<TopicOffsets> {
    const offsets: TopicOffsets = new Map();
    for (const topic of topics) {
      const logs = this.broker.partitions(topic) ?? [];
      offsets.set(topic, new Map(logs.map((log, partition) => [partition, String(log.high)])));
    }
    return offsets;
  }

  async offsetBounds(topic: string): Promise<Map<number, OffsetBounds>> {
    const logs = this.broker.partitions(topic) ?? [];
    return new Map(logs.map((log, partition) => [partition, log.bounds()]));
  }

  async offsetsForTimestamp(topic: string, timestamp: number): Promise<Map<number, string>> {
    const logs = this.broker.partitions(topic) ?? [];
    return new Map(logs.map((log, partition) => [partition, String(log.offsetAt(timestamp))]));
  }

  async liveMembers(groupPrefix: string): Promise<LiveGroupMember[]> {
    return this.broker
      .allMembers()
      .filter((m) => m.groupId.startsWith(groupPrefix) && POOL_GROUP.test(m.groupId))
      .map((m) => ({
        groupId: m.groupId,
        memberId: m.memberId!,
        topics: [...m.topics],
        userData: m.userData,
      }));
  }

  async occupiedGroups(groupPrefix: string): Promise<string[]> {
    const groups = this.broker.allMembers().map((m) => m.groupId);
    return [...new Set(groups)].filter((groupId) => groupId.startsWith(groupPrefix));
  }

  async disconnect(): Promise<void> {}
}
