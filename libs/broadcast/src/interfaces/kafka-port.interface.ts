import type { LiveGroupMember } from './broadcast-roster.interface.js';

/**
 * The engine's view of a Kafka client: one adapter per client library (../adapters/kafkajs,
 * ../adapters/platformatic) and the in-memory broker (../testing) implement it. What the engine relies
 * on, fact by fact, and the conformance test that pins each: docs/PORT-CONTRACT.md.
 */

export type DeleteGroupOutcome = 'deleted' | 'not-found' | 'non-empty';

export interface GroupDescription {
  state: string;
  memberIds: string[];
}

/** topic → partition → offset, as decimal strings. */
export type TopicOffsets = Map<string, Map<number, string>>;

/** A partition's log as the broker holds it now, as decimal strings. */
export interface OffsetBounds {
  /** The first offset still in the log (the log start offset). */
  low: string;
  /** The high watermark: the offset the next record will get. */
  high: string;
}

export interface KafkaAdminPort {
  /** Creates the topics that are missing and waits for their leaders; `signal` ends the wait. */
  ensureTopics(topics: readonly string[], signal?: AbortSignal): Promise<void>;
  /**
   * Deletes a consumer group; transient coordinator errors are retried until `deadline`
   * (epoch ms) or until `signal` aborts, whichever comes first.
   */
  deleteGroup(groupId: string, deadline: number, signal?: AbortSignal): Promise<DeleteGroupOutcome>;
  describeGroup(groupId: string): Promise<GroupDescription>;
  /** The next offset to be written in every partition of the topics (the high watermarks). */
  latestOffsets(topics: readonly string[]): Promise<TopicOffsets>;
  /**
   * Per partition of the topic, the first offset the log still holds (`low`, the log start) and
   * the high watermark (`high`): what a position out of range is judged against.
   */
  offsetBounds(topic: string): Promise<Map<number, OffsetBounds>>;
  /**
   * Per partition of the topic, the first offset the log still holds (`low` of offsetBounds)
   * alone, where the client reads it in fewer requests than both bounds: the start reads it for
   * the heartbeat topic right after the snapshot read the highs (NewestHeartbeat). Optional: a
   * port without it is asked for offsetBounds.
   */
  logStartOffsets?(topic: string): Promise<Map<number, string>>;
  /** Per partition, the first offset at or after `timestamp` (the high watermark if none). */
  offsetsForTimestamp(topic: string, timestamp: number): Promise<Map<number, string>>;
  /** Members of the pool groups named `<groupPrefix>…-<n>` (the roster), with their user data. */
  liveMembers(groupPrefix: string): Promise<LiveGroupMember[]>;
  /**
   * The groups named `<groupPrefix>…` that have members now, from one listing (a client whose
   * listing carries no group state may list empty ones too: describing them all would cost a
   * request per group). A hint for choosing a lock-free group: the engine never relies on it for
   * exclusivity.
   */
  occupiedGroups(groupPrefix: string): Promise<string[]>;
  disconnect(): Promise<void>;
}

/** One record as received; structurally the kafkajs message, so no copy is made. */
export interface IncomingRecord {
  key: Buffer | null;
  value: Buffer | null;
  timestamp: string;
  offset: string;
  headers?: Record<string, Buffer | string | (Buffer | string)[] | undefined>;
}

export type RecordSink = (
  topic: string,
  partition: number,
  record: IncomingRecord,
) => void | Promise<void>;

/** What a group consumer tells its owner (contract: docs/PORT-CONTRACT.md, membership facts). */
export interface GroupConsumerListener {
  /**
   * The member is joining with this id, before the broker answers: the id a KIP-848 client makes,
   * or the one a classic broker hands out (MEMBER_ID_REQUIRED) before the join that uses it. A
   * member left behind by that join is the owner's own, not a foreign one.
   */
  joining?(memberId: string): void;
  /**
   * Every membership change: a (re)join, a new generation or member epoch, the same partitions
   * included. `leader`: the coordinator's leader of this generation (all members agree on it).
   */
  joined(
    memberId: string,
    assignment: ReadonlyMap<string, readonly number[]>,
    leader: boolean,
  ): void;
  /**
   * The first fetch after a join read from the sought positions. Optional: the operator CLI's
   * topic readers announce readiness with it; the engine does not listen.
   */
  positioned?(): void;
  /** The consumer stopped on an error (a fence, an expired session included) and will not restart. */
  crashed(error: Error): void;
}

export interface GroupConsumerPort {
  readonly groupId: string;
  /** Connects, subscribes and starts consuming; joining continues in the background. */
  start(): Promise<void>;
  /** Where a partition is read from on the next fetch: local only, never a commit (contract). */
  seek(topic: string, partition: number, offset: string): void;
  /**
   * Leaves the group and disconnects; idempotent, bounded in time, and at any moment (during
   * start() or an unanswered join) it leaves no member behind (contract).
   */
  stop(): Promise<void>;
}

/** Which topics a group consumer leaves out of its fetches now (GroupConsumerSpec.pauses). */
export interface FetchPauses {
  /** Whether `topic` is left out of fetches now. */
  paused(topic: string): boolean;
  /** Calls `changed` after every pause or resume; returns what ends the calls. */
  watch(changed: () => void): () => void;
}

export interface GroupConsumerSpec {
  groupId: string;
  topics: readonly string[];
  /** Where a partition starts when it has no sought position (the engine seeks them all). */
  fromBeginning: boolean;
  sink: RecordSink;
  listener: GroupConsumerListener;
  /**
   * This member's user data in the group (the engine's member info, read back by `liveMembers`
   * for the roster); none when omitted.
   */
  userData?: string;
  /**
   * A static group instance id, for a claim the broker enforces where it can: under KIP-848 (the
   * consumer protocol) a member that joins with an instance id an active member holds is refused
   * (UNRELEASED_INSTANCE_ID) and the consumer crashes with that reason, the holder untouched;
   * the id is free again once its holder left or its session ended. A client or protocol that
   * cannot enforce it (the classic protocol, where static membership lets the newcomer fence the
   * holder) sends none. None when omitted (a dynamic member).
   */
  instanceId?: string;
  /**
   * The fetch position passed `nextOffset − 1`, records the client filtered out included;
   * `timestamp`: the last record handed to the sink below `nextOffset`, if any (contract).
   */
  progress?(topic: string, partition: number, nextOffset: string, timestamp?: string): void;
  /**
   * Topics left out of fetches for a while (the engine's receipts topic while none of its
   * receipts waits); none when omitted. A paused topic keeps its positions: fetching resumes
   * where it stopped, nothing skipped, nothing committed (contract).
   */
  pauses?: FetchPauses;
  /**
   * A fetch of the partition was answered OFFSET_OUT_OF_RANGE: resolves with the offset reading
   * continues from; the client resolves nothing by itself (contract).
   */
  outOfRange?(topic: string, partition: number): Promise<string>;
}

export interface OutgoingRecord {
  key: string | null;
  value: string;
  headers?: Record<string, string>;
}

/** A record copied as it was received (a dead letter): key, value bytes and headers kept. */
export interface RawOutgoingRecord {
  key: Buffer | string | null;
  value: Buffer | string | null;
  headers?: Record<string, Buffer | string | (Buffer | string)[]>;
}

/** Which client a port runs on and the group protocol its consumers speak (once chosen). */
export interface KafkaPortAbout {
  client: string;
  groupProtocol?: 'classic' | 'consumer';
}

export interface KafkaPort {
  readonly admin: KafkaAdminPort;
  /** The client and group protocol, for the engine's ready line; undefined before they are known. */
  about?(): KafkaPortAbout | undefined;
  createGroupConsumer(spec: GroupConsumerSpec): GroupConsumerPort;
  /**
   * Whether a consumer of `groupId` made with `spec.instanceId` is refused by the broker while an
   * active member holds that id (KIP-848, UNRELEASED_INSTANCE_ID), so that the join itself is the
   * claim; chooses the group protocol if not yet chosen. False when omitted.
   */
  claimsByInstanceId?(groupId: string): Promise<boolean>;
  /** Resolves once the broker acknowledged every record (acks = all). */
  send(topic: string, records: (OutgoingRecord | RawOutgoingRecord)[]): Promise<void>;
  disconnect(): Promise<void>;
}
