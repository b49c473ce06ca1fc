import type { Admin, GroupDescription } from 'kafkajs';

/** What this file uses of a kafkajs Broker: its node id and its DescribeGroups. */
interface CoordinatorBroker {
  nodeId: number;
  describeGroups(request: { groupIds: string[] }): Promise<{ groups: GroupDescription[] }>;
}

/** What this file uses of the admin's kafkajs Cluster (kafkajs-own-cluster.ts keeps it). */
interface CoordinatorCluster {
  findGroupCoordinator(request: { groupId: string }): Promise<CoordinatorBroker>;
  findBroker(request: { nodeId: number }): Promise<CoordinatorBroker>;
}

/**
 * DescribeGroups for the pool's groups, each group's coordinator remembered from one call to the
 * next. kafkajs's `admin.describeGroups` asks FindCoordinator for every group on every call: a
 * receipt's look at ten instances sent ten FindCoordinator before its one DescribeGroups, where
 * @platformatic/kafka asks them all in one. A group's coordinator moves only with the leader of
 * its `__consumer_offsets` partition; the broker then answers NOT_COORDINATOR, and the call is
 * made again the client's own way (which finds the coordinators anew and retries) with the groups
 * of that coordinator forgotten. Without the Cluster internals it is always the client's way.
 */
export class KafkajsGroupDescribes {
  /** Group id to the node id of its coordinator, for the groups of the latest call. */
  private readonly coordinators = new Map<string, number>();

  /** The groups whose coordinators are kept: those of the latest listing (see keepOnly). */
  known(): string[] {
    return [...this.coordinators.keys()];
  }

  /** Forgets the coordinators of the groups a listing no longer shows. */
  keepOnly(groupIds: readonly string[]): void {
    const listed = new Set(groupIds);
    for (const groupId of this.coordinators.keys())
      if (!listed.has(groupId)) this.coordinators.delete(groupId);
  }

  async describe(admin: Admin, cluster: unknown, groupIds: string[]): Promise<GroupDescription[]> {
    if (groupIds.length === 0) return [];
    if (!isCoordinatorCluster(cluster)) return (await admin.describeGroups(groupIds)).groups;
    try {
      const byNode = new Map<number, { broker: CoordinatorBroker; groupIds: string[] }>();
      await Promise.all(
        groupIds.map(async (groupId) => {
          const known = this.coordinators.get(groupId);
          const broker =
            known === undefined
              ? await cluster.findGroupCoordinator({ groupId })
              : await cluster.findBroker({ nodeId: known });
          this.coordinators.set(groupId, broker.nodeId);
          const entry = byNode.get(broker.nodeId);
          if (entry) entry.groupIds.push(groupId);
          else byNode.set(broker.nodeId, { broker, groupIds: [groupId] });
        }),
      );
      const answers = await Promise.all(
        [...byNode.values()].map(({ broker, groupIds }) =>
          broker.describeGroups({ groupIds }).catch((error: unknown) => {
            for (const groupId of groupIds) this.coordinators.delete(groupId);
            throw error;
          }),
        ),
      );
      return answers.flatMap((answer) => answer.groups);
    } catch {
      // A coordinator moved or failed: the client's own call, with its lookups and retries.
      return (await admin.describeGroups(groupIds)).groups;
    }
  }
}

function isCoordinatorCluster(value: unknown): value is CoordinatorCluster {
  const c = value as Partial<Record<keyof CoordinatorCluster, unknown>> | undefined;
  return typeof c?.findGroupCoordinator === 'function' && typeof c.findBroker === 'function';
}
