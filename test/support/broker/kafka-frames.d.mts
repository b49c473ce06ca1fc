// Types for test/support/broker/kafka-frames.mjs.
export declare const ApiKey: Readonly<{
  Produce: 0;
  Fetch: 1;
  ListOffsets: 2;
  Metadata: 3;
  OffsetCommit: 8;
  OffsetFetch: 9;
  FindCoordinator: 10;
  JoinGroup: 11;
  Heartbeat: 12;
  LeaveGroup: 13;
  SyncGroup: 14;
  DescribeGroups: 15;
  ListGroups: 16;
  ApiVersions: 18;
  CreateTopics: 19;
  DeleteTopics: 20;
  InitProducerId: 22;
  OffsetForLeaderEpoch: 23;
  DescribeConfigs: 32;
  DeleteGroups: 42;
  DescribeCluster: 60;
  ConsumerGroupHeartbeat: 68;
  ConsumerGroupDescribe: 69;
  GetTelemetrySubscriptions: 71;
  PushTelemetry: 72;
  DescribeTopicPartitions: 75;
}>;

export interface RequestHeader {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
}

export declare function requestHeader(frame: Buffer): RequestHeader;
export declare function responseCorrelationId(frame: Buffer): number;

export declare class FrameSplitter {
  /** Adds bytes; returns every frame they complete, in order. */
  push(chunk: Buffer): Buffer[];
}

/** Kafka error codes the seam tests write into responses. */
export declare const ErrorCode: Readonly<{ OFFSET_OUT_OF_RANGE: 1 }>;

export interface FetchResponsePartition {
  /** the topic's name (Fetch up to v12; undefined from v13) */
  topic: string | undefined;
  /** the topic's id, 8-4-4-4-12 hex (Fetch from v13; undefined before) */
  topicId: string | undefined;
  partition: number;
  errorCode: number;
  /** byte position of the partition's error code in the frame */
  errorCodeAt: number;
  highWatermark: bigint;
  /** byte position of the partition's first record byte in the frame */
  recordsAt: number;
  /** size of the partition's record set (0 when none) */
  recordBytes: number;
}

/**
 * The partitions of a whole Fetch response frame (size prefix included) of `apiVersion` (the
 * request's; 11 when omitted, kafkajs's): v11 classic, v12+ flexible, v13+ topic ids.
 */
export declare function fetchResponsePartitions(
  frame: Buffer,
  apiVersion?: number,
): FetchResponsePartition[];

/**
 * A copy of a Fetch response frame with one partition's error code replaced; `topic` is the
 * topic's name up to v12, its topic id from v13.
 */
export declare function withFetchPartitionError(
  frame: Buffer,
  topic: string,
  partition: number,
  errorCode: number,
  apiVersion?: number,
): Buffer;
