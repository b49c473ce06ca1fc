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

export interface KafkaAdminPort {
  /** Creates the topics that are missing and waits for their leaders. */
  ensureTopics(topics: readonly string[]): Promise<void>;
  /** Deletes a consumer group; transient coordinator errors are retried until `deadline` (epoch ms). */
  deleteGroup(groupId: string, deadline: number): Promise<DeleteGroupOutcome>;
  describeGroup(groupId: string): Promise<GroupDescription>;
  /** The next offset to be written in every partition of the topics (the high watermarks). */
  latestOffsets(topics: readonly string[]): Promise<TopicOffsets>;
  /** Members of the pool groups named `<groupPrefix>…-<n>` (the roster); optional. */
  liveMembers?(groupPrefix: string): Promise<LiveGroupMember[]>;
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
  /** The member (re)joined the group and received this assignment. */
  joined(memberId: string, assignment: ReadonlyMap<string, readonly number[]>): void;
  /** A fetch that started after the latest join has completed: positions are resolved. */
  positioned(): void;
  /** The consumer stopped on an error and will not restart by itself. */
  crashed(error: Error): void;
}

export interface GroupConsumerPort {
  readonly groupId: string;
  /** Connects, subscribes and starts consuming; joining continues in the background. */
  start(): Promise<void>;
  /** Sets the position a partition is read from on the next fetch. */
  seek(topic: string, partition: number, offset: string): void;
  /** Leaves the group and disconnects. Idempotent and bounded in time. */
  stop(): Promise<void>;
}

export interface GroupConsumerSpec {
  groupId: string;
  topics: readonly string[];
  /** Where partitions without a committed offset start. */
  fromBeginning: boolean;
  sink: RecordSink;
  listener: GroupConsumerListener;
}

export interface OutgoingRecord {
  key: string | null;
  value: string;
  headers?: Record<string, string>;
}

export interface KafkaPort {
  readonly admin: KafkaAdminPort;
  createGroupConsumer(spec: GroupConsumerSpec): GroupConsumerPort;
  /** Describes this instance in every group it joins (member user data), for the roster. */
  memberUserData?: () => string;
  /** Resolves once the broker acknowledged every record (acks = all). */
  send(topic: string, records: OutgoingRecord[]): Promise<void>;
  disconnect(): Promise<void>;
}
