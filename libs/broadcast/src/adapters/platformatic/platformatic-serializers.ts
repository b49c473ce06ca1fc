import type { Serializers } from '@platformatic/kafka';
import type { OutgoingRecord, RawOutgoingRecord } from '../../interfaces/kafka-port.interface.js';

/** What the producer is given for a key, a value, a header name or a header value. */
export type Bytes = Buffer | string;

/** A string as UTF-8, bytes as they are; nothing (null or absent) stays absent. */
function toBytes(data?: Bytes | null): Buffer | undefined {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  return Buffer.isBuffer(data) ? data : undefined;
}

/**
 * Serializers for strings and Buffers alike. The client's own `stringSerializers` return
 * undefined for anything but a string (clients/serde.js:1-6), so a dead letter, which copies the
 * received record's key, value and headers as Buffers, was written with a null key, a null
 * value and no headers (test/features/failure-policy.spec.ts on this adapter).
 */
export const bytesSerializers: Serializers<Bytes, Bytes, Bytes, Bytes> = {
  key: toBytes,
  value: toBytes,
  headerKey: toBytes,
  headerValue: toBytes,
};

/**
 * A record's headers as the client writes them: one entry per value, so a header received
 * several times is copied several times (the client turns a plain object into one entry per
 * name; a Map keyed by distinct Buffer objects keeps each value).
 */
export function toProducedHeaders(
  headers: (OutgoingRecord | RawOutgoingRecord)['headers'],
): Map<Bytes, Bytes> | undefined {
  if (!headers) return undefined;
  const produced = new Map<Bytes, Bytes>();
  for (const [name, value] of Object.entries(headers))
    for (const one of Array.isArray(value) ? value : [value])
      produced.set(Buffer.from(name, 'utf8'), one);
  return produced;
}
