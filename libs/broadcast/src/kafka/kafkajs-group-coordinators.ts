import kafkajs, { type Admin, type GroupDescription as KafkajsGroup } from 'kafkajs';
import { chain } from './kafkajs-error-chain.js';

/** A kafkajs 2.2.4 Broker, as far as the two group requests sent to it directly go. */
interface CoordinatorBroker {
  nodeId: number;
  deleteGroups(
    groupIds: string[],
  ): Promise<{ results: { groupId: string; errorCode: number; error?: unknown }[] }>;
  describeGroups(request: { groupIds: string[] }): Promise<{ groups: KafkajsGroup[] }>;
}

/** The parts of kafkajs 2.2.4's internal Cluster that find a group's coordinator broker. */
interface CoordinatorCluster {
  findGroupCoordinator(request: { groupId: string }): Promise<CoordinatorBroker>;
  findBroker(request: { nodeId: number }): Promise<CoordinatorBroker>;
}

/** The two group calls KafkajsAdmin makes for one group. */
export interface GroupCalls {
  /** Deletes the group; a refusal throws kafkajs's KafkaJSDeleteGroupsError. */
  deleteGroup(groupId: string): Promise<void>;
  describeGroup(groupId: string): Promise<KafkajsGroup | undefined>;
}

/** Straight to the coordinator through `cluster` when it has the parts; kafkajs's admin otherwise. */
export function groupCalls(admin: Admin, cluster: unknown): GroupCalls {
  return (
    GroupCoordinators.of(cluster) ?? {
      deleteGroup: async (groupId) => void (await admin.deleteGroups([groupId])),
      describeGroup: async (groupId) =>
        (await admin.describeGroups([groupId])).groups.find((g) => g.groupId === groupId),
    }
  );
}

/** The coordinator moved or is not there (yet): find it again. */
const MOVED_TYPES = new Set(['COORDINATOR_NOT_AVAILABLE', 'NOT_COORDINATOR']);
const moved = (error: unknown) => MOVED_TYPES.has((error as { type?: string })?.type ?? '');
/** Pool groups number maxGroups (200 by default); a bound keeps a long-lived admin small. */
const MAX_REMEMBERED = 1_024;

/**
 * DeleteGroups and DescribeGroups for one group, sent straight to its coordinator. kafkajs's
 * admin re-reads the cluster's metadata before every DeleteGroups and looks the coordinator up
 * again for every call, so a start (delete, then describe to verify) cost a Metadata and a
 * FindCoordinator more than it needs, and a lock-free probe of an occupied id three requests
 * instead of one. Here each group's coordinator node is found once and reused until the broker
 * says it moved.
 */
export class GroupCoordinators implements GroupCalls {
  private readonly nodes = new Map<string, number>();

  private constructor(private readonly cluster: CoordinatorCluster) {}

  /** For the admin's Cluster (see adminWithCluster); undefined when this kafkajs lacks the parts. */
  static of(cluster: unknown): GroupCoordinators | undefined {
    const c = cluster as Partial<Record<keyof CoordinatorCluster, unknown>> | undefined;
    return typeof c?.findGroupCoordinator === 'function' && typeof c.findBroker === 'function'
      ? new GroupCoordinators(cluster as CoordinatorCluster)
      : undefined;
  }

  /** Deletes `groupId`; a refusal throws kafkajs's KafkaJSDeleteGroupsError, as its admin does. */
  async deleteGroup(groupId: string): Promise<void> {
    const { results } = await this.send(groupId, (broker) => broker.deleteGroups([groupId]));
    const failed = results.filter((r) => r.errorCode !== 0);
    if (failed.length === 0) return;
    // Each failed result carries kafkajs's error for its code (and so its type).
    if (failed.some((r) => moved(r.error))) this.nodes.delete(groupId);
    throw new kafkajs.KafkaJSDeleteGroupsError(
      'Error in DeleteGroups',
      failed as ConstructorParameters<typeof kafkajs.KafkaJSDeleteGroupsError>[1],
    );
  }

  /** The group as its coordinator describes it; a coordinator that moved is found again once. */
  async describeGroup(groupId: string): Promise<KafkajsGroup | undefined> {
    const describe = async () => {
      const { groups } = await this.send(groupId, (b) => b.describeGroups({ groupIds: [groupId] }));
      return groups.find((g) => g.groupId === groupId);
    };
    try {
      return await describe();
    } catch (error) {
      // send() forgot the coordinator unless the broker refused: then asking again cannot help.
      if (this.nodes.has(groupId)) throw error;
      return describe();
    }
  }

  /** Sends to the coordinator; any failure but a refusal forgets it, so the next call finds it. */
  private async send<T>(groupId: string, request: (broker: CoordinatorBroker) => Promise<T>) {
    try {
      return await request(await this.coordinator(groupId));
    } catch (error) {
      const refused = [...chain(error)].some((e) => e.type && !moved(e));
      if (!refused) this.nodes.delete(groupId);
      throw error;
    }
  }

  private async coordinator(groupId: string): Promise<CoordinatorBroker> {
    const nodeId = this.nodes.get(groupId);
    if (nodeId !== undefined) return this.cluster.findBroker({ nodeId });
    const broker = await this.cluster.findGroupCoordinator({ groupId });
    if (this.nodes.size >= MAX_REMEMBERED) this.nodes.clear();
    this.nodes.set(groupId, broker.nodeId);
    return broker;
  }
}
