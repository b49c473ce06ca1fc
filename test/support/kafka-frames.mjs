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
