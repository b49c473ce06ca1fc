import * as client from '@platformatic/kafka';
import type { Admin, ClusterMetadata } from '@platformatic/kafka';
import type { BrokerApi } from './platformatic-consumer-group-describe.js';

const LIST_OFFSETS = 2;
const LIST_GROUPS = 16;
/** The ListOffsets versions sent here: one request shape (replica, isolation level, topics). */
const FIRST_LIST_OFFSETS = 4;
const LAST_LIST_OFFSETS = 9;

/**
 * The client's API functions, looked up when called: the 1.x line the peer range takes (~1.35)
 * exports none of them, and a named import of one would fail the whole adapter's load there (the
 * package matrix's 'nest12-platformatic-1.35' cell: "does not provide an export named
 * 'listOffsetsV4'"). Without them the caller takes the client's own call.
 */
const exported = client as unknown as Record<string, unknown>;
const listOffsetsApi = (version: number) =>
  exported[`listOffsetsV${version}`] as typeof client.listOffsetsV9 | undefined;
const listGroupsApi = () => exported['listGroupsV5'] as typeof client.listGroupsV5 | undefined;

/** One group as ListGroups lists it, in the shape of the client's own `admin.listGroups`. */
export interface ListedGroup {
  id: string;
  state: string;
  groupType: string | undefined;
  protocolType: string;
}

/**
 * Admin reads sent straight to the brokers the admin's cached metadata names, through its own
 * connection pool and the client's exported API functions.
 *
 * Why: the client's `admin.listOffsets` and `admin.listGroups` ask Metadata afresh on every call
 * (forceUpdate), although a start's topic check has just read it: 2 of a start's 5 Metadata
 * requests. Here a call reuses the metadata at hand (the client refreshes it after
 * metadataMaxAge). The versions come from the broker's ApiVersions answer the connection probe
 * got; without it, or for a broker too old for the shape used here, the answer is `undefined` and
 * the caller takes the client's own call. So does a retry: a failure may mean stale metadata.
 */
export class PlatformaticKnownLeaders {
  constructor(
    private readonly admin: Admin,
    /** The broker's APIs, once the connection probe read them. */
    private readonly apis: () => readonly BrokerApi[] | undefined,
  ) {}

  /** ListOffsets to each partition's leader, as the metadata at hand names it. */
  async listOffsets(
    topics: readonly {
      name: string;
      partitions: { partitionIndex: number; timestamp: bigint }[];
    }[],
    isolationLevel: number,
  ): Promise<
    { name: string; partitions: { partitionIndex: number; offset: bigint }[] }[] | undefined
  > {
    const version = Math.min(this.maxVersion(LIST_OFFSETS) ?? -1, LAST_LIST_OFFSETS);
    const listOffsets = version >= FIRST_LIST_OFFSETS ? listOffsetsApi(version) : undefined;
    if (!listOffsets) return undefined;
    const api = listOffsets.api;
    const metadata: ClusterMetadata = await this.admin.metadata({
      topics: topics.map((t) => t.name),
    });
    const byLeader = new Map<number, { name: string; partitions: PartitionAsk[] }[]>();
    for (const topic of topics) {
      const described = metadata.topics.get(topic.name);
      for (const { partitionIndex, timestamp } of topic.partitions) {
        const partition = described?.partitions[partitionIndex];
        if (!partition) return undefined;
        const asks = byLeader.get(partition.leader) ?? [];
        byLeader.set(partition.leader, asks);
        let ask = asks.find((a) => a.name === topic.name);
        if (!ask) asks.push((ask = { name: topic.name, partitions: [] }));
        ask.partitions.push({
          partitionIndex,
          currentLeaderEpoch: partition.leaderEpoch,
          timestamp,
        });
      }
    }
    const answers = await Promise.all(
      [...byLeader].map(async ([leader, asks]) => {
        const broker = metadata.brokers.get(leader);
        if (!broker) throw new Error(`no broker ${leader} in the metadata`);
        return api.async(await this.admin.connections.get(broker), -1, isolationLevel, asks);
      }),
    );
    const listed = new Map<string, { partitionIndex: number; offset: bigint }[]>();
    for (const answer of answers)
      for (const topic of answer.topics) {
        const partitions = listed.get(topic.name) ?? [];
        listed.set(topic.name, partitions);
        for (const p of topic.partitions)
          partitions.push({ partitionIndex: p.partitionIndex, offset: p.offset });
      }
    return [...listed].map(([name, partitions]) => ({ name, partitions }));
  }

  /** ListGroups v5 (type filter) on every broker the metadata at hand names. */
  async listGroups(types: string[]): Promise<Map<string, ListedGroup> | undefined> {
    const listGroupsV5 = listGroupsApi();
    if (!listGroupsV5 || (this.maxVersion(LIST_GROUPS) ?? -1) < 5) return undefined;
    const { brokers } = await this.admin.metadata({ topics: [] });
    const answers = await Promise.all(
      [...brokers.values()].map(async (broker) =>
        listGroupsV5.api.async(await this.admin.connections.get(broker), [], types),
      ),
    );
    const groups = new Map<string, ListedGroup>();
    for (const answer of answers)
      for (const g of answer.groups)
        groups.set(g.groupId, {
          id: g.groupId,
          // As the client's own listGroups reports them (admin.js #listGroups).
          state: g.groupState || 'Unknown',
          groupType: g.groupType || undefined,
          protocolType: g.protocolType,
        });
    return groups;
  }

  private maxVersion(apiKey: number): number | undefined {
    return this.apis()?.find((a) => a.apiKey === apiKey)?.maxVersion;
  }
}

interface PartitionAsk {
  partitionIndex: number;
  currentLeaderEpoch: number;
  timestamp: bigint;
}
