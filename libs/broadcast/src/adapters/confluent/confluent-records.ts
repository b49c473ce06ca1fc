import type { IncomingRecord } from '../../interfaces/kafka-port.interface.js';
import type { Message } from './confluent-library.js';

type Headers = NonNullable<IncomingRecord['headers']>;

/**
 * A record as the engine reads it, from the binding's message: its key and value as Buffers,
 * its offset and timestamp as decimal strings, its headers (a list of one-entry objects, a
 * header repeated under one name) as one record of Buffers, a repeated name as a list.
 */
export function recordOf(message: Message): IncomingRecord {
  const key = message.key;
  const record: IncomingRecord = {
    key: key === undefined || key === null ? null : Buffer.isBuffer(key) ? key : Buffer.from(key),
    value: message.value ?? null,
    timestamp: String(message.timestamp ?? -1),
    offset: String(message.offset),
  };
  if (message.headers?.length) {
    const headers: Headers = {};
    for (const header of message.headers)
      for (const [name, raw] of Object.entries(header)) {
        const value = Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
        const seen = headers[name];
        headers[name] =
          seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
      }
    record.headers = headers;
  }
  return record;
}

/** The engine's headers as the binding produces them: one entry per value, in order. */
export function toProducedHeaders(
  headers: Record<string, Buffer | string | (Buffer | string)[]> | undefined,
): { [key: string]: Buffer | string }[] | undefined {
  if (!headers) return undefined;
  const out: { [key: string]: Buffer | string }[] = [];
  for (const [name, value] of Object.entries(headers))
    for (const v of Array.isArray(value) ? value : [value]) out.push({ [name]: v });
  return out;
}
