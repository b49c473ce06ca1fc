import type { ClusterMetadata, Consumer, fetchV17 } from '@platformatic/kafka';
import { chainOf, hasProtocolError } from './platformatic-errors.js';

// The Fetch requests of one PlatformaticFetcher round: what to ask each partition leader, and the
// one Fetch to a leader, whose OFFSET_OUT_OF_RANGE answer the client throws but the engine must
// read. Kept apart from the fetcher, which owns the positions and what happens to the answers.

export const OFFSET_OUT_OF_RANGE = 1;
const MAX_BYTES_PER_PARTITION = 1_048_576;

export type FetchResponse = fetchV17.FetchResponse;
type FetchRequestTopic = fetchV17.FetchRequestTopic;
export type Requested = Map<string, { topic: string; partition: number; offset: bigint }>;

/** One round's requests: per leader node, with what was asked and the topic of each topic id. */
export interface FetchPlan {
  byLeader: Map<number, FetchRequestTopic[]>;
  requested: Requested;
  topicIds: Map<string, string>;
}

/** The map key of one partition. */
export function keyOf(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

/**
 * A request per positioned partition whose leader is known, grouped by leader. Each partition
 * names the leader epoch the metadata gave (`currentLeaderEpoch`), as Kafka's Java consumer does
 * (KIP-320). Why: a Fetch v11+ from a consumer may be served by a follower (KIP-392), and one
 * without an epoch is. In a rolling restart the stopping leader hands its partitions over and keeps
 * answering until its sockets close, now as a follower that no longer replicates: up to its
 * frozen high watermark, so with nothing, each answer after the whole maxWaitTimeMs. Measured
 * (rolling-restart spec, 2026-12-07): 2.0-2.7 s of such empty answers on every @platformatic/kafka
 * instance, classic and KIP-848, after the producer was already acknowledged by the new leader.
 * With the epoch the old leader answers FENCED_LEADER_EPOCH at once, and the client refreshes its
 * metadata and retries at the new leader (platformatic-fetch-leaders.ts: without a wait).
 * `lastFetchedEpoch` stays -1, as in Java's consumer (no divergence check on a consumer fetch).
 */
export function planFetch(
  assignment: readonly { topic: string; partitions: readonly number[] }[],
  metadata: ClusterMetadata,
  offsetOf: (topic: string, partition: number) => bigint | undefined,
): FetchPlan {
  const byLeader = new Map<number, FetchRequestTopic[]>();
  const requested: Requested = new Map();
  const topicIds = new Map<string, string>();
  for (const { topic, partitions } of assignment) {
    const described = metadata.topics.get(topic);
    if (!described) continue;
    topicIds.set(described.id, topic);
    for (const partition of partitions) {
      const offset = offsetOf(topic, partition);
      const { leader, leaderEpoch } = described.partitions[partition] ?? {};
      if (offset === undefined || leader === undefined || leader < 0) continue;
      requested.set(keyOf(topic, partition), { topic, partition, offset });
      const list = byLeader.get(leader) ?? [];
      list.push({
        topicId: described.id,
        partitions: [
          {
            partition,
            fetchOffset: offset,
            partitionMaxBytes: MAX_BYTES_PER_PARTITION,
            currentLeaderEpoch: leaderEpoch !== undefined && leaderEpoch >= 0 ? leaderEpoch : -1,
            lastFetchedEpoch: -1,
          },
        ],
      });
      byLeader.set(leader, list);
    }
  }
  return { byLeader, requested, topicIds };
}

/** One Fetch to one leader; a response with OFFSET_OUT_OF_RANGE partitions is still read. */
export async function fetchFromLeader(
  consumer: Consumer,
  node: number,
  topics: FetchRequestTopic[],
  maxWaitTime: number,
): Promise<FetchResponse> {
  try {
    return await consumer.fetch({ node, topics, maxWaitTime });
  } catch (error) {
    if (!hasProtocolError(error, 'OFFSET_OUT_OF_RANGE')) throw error;
    const response = [...chainOf(error)].find((e) => isFetchResponse(e.response))?.response;
    if (!isFetchResponse(response)) throw error;
    // The client filters aborted transactions only from answers without errors: keep the
    // out-of-range partitions alone; the others are fetched again from where they are.
    return {
      ...response,
      responses: response.responses.map((t) => ({
        ...t,
        partitions: t.partitions.filter((p) => p.errorCode === OFFSET_OUT_OF_RANGE),
      })),
    };
  }
}

function isFetchResponse(value: unknown): value is FetchResponse {
  return Array.isArray((value as Partial<FetchResponse> | undefined)?.responses);
}
