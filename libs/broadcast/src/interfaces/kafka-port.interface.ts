import type { LiveGroupMember } from './broadcast-roster.interface.js';

/**
 * The engine's view of a Kafka client. Only the adapter in ../kafka implements it,
 * so another client library can be added without touching the engine.
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
  /** Per partition, the first offset at or after `timestamp` (the high watermark if none); optional. */
  offsetsForTimestamp?(topic: string, timestamp: number): Promise<Map<number, string>>;
  /** Members of the pool groups named `<groupPrefix>…-<n>` (the roster); optional. */
  liveMembers?(groupPrefix: string): Promise<LiveGroupMember[]>;
  /**
   * The groups named `<groupPrefix>…` that have members now, from one listing (ListGroups, and
   * the describes the client needs to count members); optional. A hint for choosing a lock-free
   * group: the engine never relies on it for exclusivity.
   */
  occupiedGroups?(groupPrefix: string): Promise<string[]>;
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

export interface GroupConsumerListener {
  /**
   * The member is joining with this id, before the broker answers (KIP-848: the client makes its
   * member id). The broker may hold the member from then on, so the id is the engine's own even
   * if no answer ever comes (a stop or a crash during the join). Clients whose broker makes the
   * id (classic) report it only through `joined`.
   */
  joining?(memberId: string): void;
  /**
   * The member (re)joined the group and received this assignment; `leader` when the
   * coordinator made it this generation's leader (every member of a generation agrees on it).
   */
  joined(
    memberId: string,
    assignment: ReadonlyMap<string, readonly number[]>,
    leader: boolean,
  ): void;
  /** A fetch that started after the latest join has completed (informational). */
  positioned(): void;
  /** The consumer stopped on an error and will not restart by itself. */
  crashed(error: Error): void;
}

export interface GroupConsumerPort {
  readonly groupId: string;
  /** Connects, subscribes and starts consuming; joining continues in the background. */
  start(): Promise<void>;
  /**
   * Sets the position a partition is read from on the next fetch. Purely local: it must
   * never become a network commit (a failed commit would lose the seek).
   */
  seek(topic: string, partition: number, offset: string): void;
  /**
   * Leaves the group and disconnects. Idempotent and bounded in time. Called while start()
   * is still in flight, it waits for it and then stops: no consumer may keep running.
   */
  stop(): Promise<void>;
}

export interface GroupConsumerSpec {
  groupId: string;
  topics: readonly string[];
  /**
   * Where a partition starts when it has no sought position. The engine seeks every assigned
   * partition at every join, never relies on committed offsets (the consumer commits nothing)
   * and decides itself where a position out of the log's range resumes (`outOfRange`).
   */
  fromBeginning: boolean;
  sink: RecordSink;
  listener: GroupConsumerListener;
  /**
   * The consumer's fetch position passed `nextOffset − 1`, records the client filtered out
   * included (transaction markers, aborted records: they never reach the sink). `timestamp` is
   * that of the last record handed to the sink below `nextOffset`, when the batch had one.
   * Reported only for records the consumer is done with.
   */
  progress?(topic: string, partition: number, nextOffset: string, timestamp?: string): void;
  /**
   * The broker answered a fetch of the partition with OFFSET_OUT_OF_RANGE. Resolves with the
   * offset reading continues from; the consumer seeks it and neither commits nor resets anything
   * by itself (a client's own recovery would commit and read the whole partition again).
   */
  outOfRange?(topic: string, partition: number): Promise<string>;
  /** Internal test hook: called with 'connect', 'subscribe' and 'run' as each step begins. */
  probe?: (step: string) => void;
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
  /** Describes this instance in every group it joins (member user data), for the roster. */
  memberUserData?: () => string;
  /** Resolves once the broker acknowledged every record (acks = all). */
  send(topic: string, records: (OutgoingRecord | RawOutgoingRecord)[]): Promise<void>;
  disconnect(): Promise<void>;
}
