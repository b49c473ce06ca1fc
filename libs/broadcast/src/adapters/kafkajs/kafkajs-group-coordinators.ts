import kafkajs, { type Admin, type GroupDescription } from 'kafkajs';

// kafkajs is CommonJS: its classes come from the default export (no named export under ESM).
const { KafkaJSDeleteGroupsError } = kafkajs;

/** What this file uses of a kafkajs Broker: its node id, DescribeGroups and DeleteGroups. */
interface CoordinatorBroker {
  nodeId: number;
  describeGroups(request: { groupIds: string[] }): Promise<{ groups: GroupDescription[] }>;
  deleteGroups(
    groupIds: string[],
  ): Promise<{ results: { groupId: string; errorCode: number; error?: Error }[] }>;
}

/** What this file uses of the admin's kafkajs Cluster (kafkajs-own-cluster.ts keeps it). */
interface CoordinatorCluster {
  findGroupCoordinator(request: { groupId: string }): Promise<CoordinatorBroker>;
  findBroker(request: { nodeId: number }): Promise<CoordinatorBroker>;
}

/**
 * The admin's group calls, each to the group's coordinator as found once and kept. kafkajs's
 * `admin.describeGroups` asks FindCoordinator for every group on every call (a roster look at ten
 * instances sent ten before its one DescribeGroups), and its `admin.deleteGroups` reads the
 * cluster's metadata again and asks FindCoordinator before every DeleteGroups (a start deleted its
 * group, then looked its coordinator up again to verify the join). A group's coordinator moves
 * only with the leader of its `__consumer_offsets` partition; the broker then answers
 * NOT_COORDINATOR and the group's coordinator is forgotten: a describe is made again the client's
 * own way (which finds the coordinators anew and retries), a delete fails as kafkajs's would
 * (a KafkaJSDeleteGroupsError naming the group's error) for its caller to retry
 * (deleteGroupRetrying). Without the Cluster internals every call is the client's own.
 */
export class KafkajsGroupCoordinators {
  /** Group id to the node id of its coordinator. */
  private readonly coordinators = new Map<string, number>();

  /** The groups whose coordinators are kept. */
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
          const broker = await this.coordinatorOf(cluster, groupId);
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

  /**
   * One DeleteGroups of `groupId`, at its kept coordinator: resolves when the broker deleted it,
   * else rejects as kafkajs's `deleteGroups` does, with a KafkaJSDeleteGroupsError whose `groups`
   * carry the broker's error code (non-empty and not-found included: deleteAnswer reads them).
   */
  async delete(admin: Admin, cluster: unknown, groupId: string): Promise<void> {
    if (!isCoordinatorCluster(cluster)) {
      await admin.deleteGroups([groupId]);
      return;
    }
    const broker = await this.coordinatorOf(cluster, groupId);
    let results: Awaited<ReturnType<CoordinatorBroker['deleteGroups']>>['results'];
    try {
      ({ results } = await broker.deleteGroups([groupId]));
    } catch (error) {
      this.coordinators.delete(groupId);
      throw error;
    }
    const failed = results.filter((r) => r.groupId === groupId && r.errorCode !== 0);
    if (failed.length === 0) return;
    // NOT_COORDINATOR and its kind: looked up again at the next attempt. Any other answer is the
    // group's own, and its coordinator stays.
    if (failed.some((r) => COORDINATOR_MOVED.has(r.errorCode))) this.coordinators.delete(groupId);
    throw new KafkaJSDeleteGroupsError(
      'Error in DeleteGroups',
      failed as ConstructorParameters<typeof KafkaJSDeleteGroupsError>[1],
    );
  }

  private async coordinatorOf(
    cluster: CoordinatorCluster,
    groupId: string,
  ): Promise<CoordinatorBroker> {
    const known = this.coordinators.get(groupId);
    if (known === undefined) {
      const broker = await cluster.findGroupCoordinator({ groupId });
      this.coordinators.set(groupId, broker.nodeId);
      return broker;
    }
    try {
      return await cluster.findBroker({ nodeId: known });
    } catch (error) {
      // Gone from the metadata, or not reachable: found anew next time.
      this.coordinators.delete(groupId);
      throw error;
    }
  }
}

/** COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR. */
const COORDINATOR_MOVED = new Set([14, 15, 16]);

function isCoordinatorCluster(value: unknown): value is CoordinatorCluster {
  const c = value as Partial<Record<keyof CoordinatorCluster, unknown>> | undefined;
  return typeof c?.findGroupCoordinator === 'function' && typeof c.findBroker === 'function';
}
