// A tiny parser of the Kafka wire protocol's framing, enough for a fault-injecting proxy to know
// which request or response a chunk of bytes belongs to. Every Kafka message on the wire is a
// 4-byte big-endian size followed by that many bytes. A request starts with
// api_key int16, api_version int16, correlation_id int32; a response starts with
// correlation_id int32 (matched to its request per connection, since responses come in order).
// Plain JavaScript (types in kafka-frames.d.mts) so that scripts/soak.mjs can use it too.

/** Kafka API keys the seam tests inject faults at. */
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
  DeleteGroups: 42,
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
 * The partitions of a whole Fetch v11 response frame (what kafkajs 2.2.4 sends to Kafka 4.x; v11 is
 * not flexible): the layout is correlation_id, throttle_time_ms int32, error_code int16,
 * session_id int32, then [topic string, [partition_index int32, error_code int16,
 * high_watermark int64, last_stable_offset int64, log_start_offset int64,
 * [producer_id int64, first_offset int64], preferred_read_replica int32, records bytes]].
 * `errorCodeAt` is the byte position of the partition's error code in the frame.
 */
export function fetchResponsePartitions(frame) {
  let at = 4 + 4 + 4 + 2 + 4; // size, correlation_id, throttle_time_ms, error_code, session_id
  const partitions = [];
  const topics = frame.readInt32BE(at);
  at += 4;
  for (let t = 0; t < topics; t++) {
    const nameLength = frame.readInt16BE(at);
    const topic = frame.toString('utf8', at + 2, at + 2 + nameLength);
    at += 2 + nameLength;
    const count = frame.readInt32BE(at);
    at += 4;
    for (let p = 0; p < count; p++) {
      const partition = frame.readInt32BE(at);
      const errorCodeAt = at + 4;
      const errorCode = frame.readInt16BE(errorCodeAt);
      const highWatermark = frame.readBigInt64BE(at + 6);
      at += 4 + 2 + 8 + 8 + 8;
      const aborted = frame.readInt32BE(at);
      at += 4 + Math.max(aborted, 0) * 16 + 4; // aborted transactions, preferred_read_replica
      const recordBytes = Math.max(frame.readInt32BE(at), 0);
      at += 4 + recordBytes;
      partitions.push({ topic, partition, errorCode, errorCodeAt, highWatermark, recordBytes });
    }
  }
  return partitions;
}

/** A copy of a Fetch v11 response frame with one partition's error code replaced. */
export function withFetchPartitionError(frame, topic, partition, errorCode) {
  const found = fetchResponsePartitions(frame).find(
    (p) => p.topic === topic && p.partition === partition,
  );
  if (!found) throw new Error(`${topic}[${partition}] is not in this Fetch response`);
  const copy = Buffer.from(frame);
  copy.writeInt16BE(errorCode, found.errorCodeAt);
  return copy;
}
