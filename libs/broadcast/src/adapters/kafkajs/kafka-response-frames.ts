/** The size prefix of every Kafka frame: a big-endian int32, the byte count that follows it. */
const SIZE_BYTES = 4;

/**
 * Cuts the bytes a Kafka broker sends into whole frames (a 4-byte size, then that many bytes).
 * One instance per socket: a frame the socket did not finish dies with it, so the next socket's
 * bytes can never be read as its rest. Chunks are only copied once a frame is complete, so a
 * large Fetch response arriving in many chunks is concatenated once, not once per chunk.
 */
export class KafkaResponseFrames {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Bytes the first incomplete frame needs in all (its size prefix included, when known). */
  private needed = SIZE_BYTES;

  /**
   * Adds a chunk; returns every frame it completes, together in one buffer (undefined if none).
   * Throws on a negative size, which no broker sends: the stream is not Kafka frames, or lost
   * its alignment, and the connection must be dropped.
   */
  push(chunk: Buffer): Buffer | undefined {
    if (chunk.length === 0) return undefined;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    if (this.buffered < this.needed) return undefined;

    const bytes = this.chunks.length === 1 ? chunk : Buffer.concat(this.chunks, this.buffered);
    let end = 0;
    this.needed = SIZE_BYTES;
    while (bytes.length - end >= SIZE_BYTES) {
      const size = bytes.readInt32BE(end);
      if (size < 0) throw new Error(`a Kafka response frame announced ${size} bytes`);
      if (bytes.length - end - SIZE_BYTES < size) {
        this.needed = SIZE_BYTES + size;
        break;
      }
      end += SIZE_BYTES + size;
    }
    const rest = bytes.subarray(end);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return end > 0 ? bytes.subarray(0, end) : undefined;
  }

  /** True while part of a frame waits for the rest of it. */
  get partial(): boolean {
    return this.buffered > 0;
  }

  /** What the incomplete frame holds, for an error message: "238 of 476 bytes". */
  describePartial(): string {
    const total = this.needed > SIZE_BYTES ? String(this.needed) : 'at least 4';
    return `${this.buffered} of ${total} bytes`;
  }
}
