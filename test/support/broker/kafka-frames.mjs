// A tiny parser of the Kafka wire protocol's framing, enough for a fault-injecting proxy to know
// which request or response a chunk of bytes belongs to. Every Kafka message on the wire is a
// 4-byte big-endian size followed by that many bytes. A request starts with
// api_key int16, api_version int16, correlation_id int32; a response starts with
// correlation_id int32 (matched to its request per connection, since responses come in order).
// Plain JavaScript (types in kafka-frames.d.mts) so that scripts/soak.mjs can use it too.

/** Kafka API keys the seam tests inject faults at, and the others the request counts name. */
export const ApiKey = Object.freeze({
  Produce: 0,
  Fetch: 1,
  ListOffsets: 2,
  Metadata: 3,
  OffsetCommit: 8,
  OffsetFetch: 9,
  FindCoordinator: 10,
  JoinGroup: 11,
  Heartbeat: 12,
  LeaveGroup: 13,
  SyncGroup: 14,
  DescribeGroups: 15,
  ListGroups: 16,
  ApiVersions: 18,
  CreateTopics: 19,
  DeleteTopics: 20,
  InitProducerId: 22,
  OffsetForLeaderEpoch: 23,
  DescribeConfigs: 32,
  DeleteGroups: 42,
  DescribeCluster: 60,
  ConsumerGroupHeartbeat: 68,
  ConsumerGroupDescribe: 69,
  GetTelemetrySubscriptions: 71,
  PushTelemetry: 72,
  DescribeTopicPartitions: 75,
});

/** Reads the request header of a whole frame (size prefix included). */
export function requestHeader(frame) {
  return {
    apiKey: frame.readInt16BE(4),
    apiVersion: frame.readInt16BE(6),
    correlationId: frame.readInt32BE(8),
  };
}

/** Reads the correlation id of a whole response frame (size prefix included). */
export function responseCorrelationId(frame) {
  return frame.readInt32BE(4);
}

/** Cuts a byte stream into whole frames (each with its 4-byte size prefix). */
export class FrameSplitter {
  pending = Buffer.alloc(0);

  /** Adds bytes; returns every frame they complete, in order. */
  push(chunk) {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const frames = [];
    while (this.pending.length >= 4) {
      const size = this.pending.readInt32BE(0);
      if (size < 0 || this.pending.length < 4 + size) break;
      frames.push(this.pending.subarray(0, 4 + size));
      this.pending = this.pending.subarray(4 + size);
    }
    return frames;
  }
}

/** Kafka error codes the seam tests write into responses. */
export const ErrorCode = Object.freeze({ OFFSET_OUT_OF_RANGE: 1 });

/**
 * The partitions of a whole Fetch response frame of `apiVersion` (the request's; the proxy knows
 * it). kafkajs 2.2.4 sends v11 (not flexible): correlation_id, throttle_time_ms int32,
 * error_code int16, session_id int32, then [topic string, [partition_index int32,
 * error_code int16, high_watermark int64, last_stable_offset int64, log_start_offset int64,
 * [producer_id int64, first_offset int64], preferred_read_replica int32, records bytes]].
 * @platformatic/kafka (1.35 and 2.12.1) sends the highest it implements that the broker takes:
 * v17 on Kafka 4.x (Kafka 4.4 takes 4-18; 1.35 implements 12-17, 2.12.1 4-17). From v12 the
 * message is flexible (a tagged-field buffer after the correlation id
 * and closing every struct; arrays, strings and records carry an unsigned-varint length + 1),
 * and from v13 a topic is named by its topic id (a UUID) instead of its name.
 * `topic` is the name (up to v12), `topicId` the UUID as 8-4-4-4-12 hex (from v13);
 * `errorCodeAt` is the byte position of the partition's error code in the frame, `recordsAt`
 * that of its first record byte.
 */
export function fetchResponsePartitions(frame, apiVersion = 11) {
  const flexible = apiVersion >= 12;
  const r = new FrameReader(frame, 4 + 4); // size, correlation_id
  if (flexible) r.tags(); // response header v1
  r.skip(4 + 2 + 4); // throttle_time_ms, error_code, session_id
  const partitions = [];
  const topics = r.arrayLength(flexible);
  for (let t = 0; t < topics; t++) {
    let topic;
    let topicId;
    if (apiVersion >= 13) topicId = r.uuid();
    else topic = r.string(flexible);
    const count = r.arrayLength(flexible);
    for (let p = 0; p < count; p++) {
      const partition = r.int32();
      const errorCodeAt = r.at;
      const errorCode = r.int16();
      const highWatermark = r.int64();
      r.skip(8 + 8); // last_stable_offset, log_start_offset
      const aborted = r.arrayLength(flexible);
      for (let a = 0; a < aborted; a++) {
        r.skip(16); // producer_id, first_offset
        if (flexible) r.tags();
      }
      r.skip(4); // preferred_read_replica
      const recordBytes = r.bytesLength(flexible);
      r.skip(recordBytes);
      if (flexible) r.tags();
      partitions.push({
        topic,
        topicId,
        partition,
        errorCode,
        errorCodeAt,
        highWatermark,
        recordBytes,
      });
    }
    if (flexible) r.tags();
  }
  return partitions;
}

/**
 * A copy of a Fetch response frame of `apiVersion` with one partition's error code replaced;
 * `topic` is the topic's name up to v12, its topic id from v13.
 */
export function withFetchPartitionError(frame, topic, partition, errorCode, apiVersion = 11) {
  const found = fetchResponsePartitions(frame, apiVersion).find(
    (p) => (p.topic ?? p.topicId) === topic && p.partition === partition,
  );
  if (!found) throw new Error(`${topic}[${partition}] is not in this Fetch response`);
  const copy = Buffer.from(frame);
  copy.writeInt16BE(errorCode, found.errorCodeAt);
  return copy;
}

/** Reads a frame's fields in order, classic and flexible (compact) encodings alike. */
class FrameReader {
  constructor(frame, at) {
    this.frame = frame;
    this.at = at;
  }

  skip(bytes) {
    this.at += bytes;
  }

  int16() {
    const value = this.frame.readInt16BE(this.at);
    this.at += 2;
    return value;
  }

  int32() {
    const value = this.frame.readInt32BE(this.at);
    this.at += 4;
    return value;
  }

  int64() {
    const value = this.frame.readBigInt64BE(this.at);
    this.at += 8;
    return value;
  }

  uvarint() {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = this.frame[this.at++];
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
    }
  }

  /** An array's element count (a null array counts 0). */
  arrayLength(flexible) {
    return flexible ? Math.max(this.uvarint() - 1, 0) : Math.max(this.int32(), 0);
  }

  /** A records or bytes field's length (null counts 0); the bytes follow. */
  bytesLength(flexible) {
    return flexible ? Math.max(this.uvarint() - 1, 0) : Math.max(this.int32(), 0);
  }

  string(flexible) {
    const length = flexible ? this.uvarint() - 1 : this.int16();
    if (length < 0) return null;
    const value = this.frame.toString('utf8', this.at, this.at + length);
    this.at += length;
    return value;
  }

  uuid() {
    const hex = this.frame.toString('hex', this.at, this.at + 16);
    this.at += 16;
    return hex.replace(/(.{8})(.{4})(.{4})(.{4})(.{12})/, '$1-$2-$3-$4-$5');
  }

  /** Skips a tagged-field buffer: a count, then per field its tag, size and bytes. */
  tags() {
    const count = this.uvarint();
    for (let i = 0; i < count; i++) {
      this.uvarint();
      this.skip(this.uvarint());
    }
  }
}
