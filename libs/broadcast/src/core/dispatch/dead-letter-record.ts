import type { IncomingRecord, RawOutgoingRecord } from '../../interfaces/kafka-port.interface.js';
import { errorMessage } from '../../shared/async.utils.js';

/** Headers a dead letter carries on top of the original record's own. */
export const DeadLetterHeaders = {
  /** The full topic the record was read from (prefix included). */
  topic: 'x-broadcast-dlt-topic',
  partition: 'x-broadcast-dlt-partition',
  offset: 'x-broadcast-dlt-offset',
  /** The original record's timestamp (epoch ms). */
  timestamp: 'x-broadcast-dlt-timestamp',
  /** The handler whose last attempt failed. */
  handler: 'x-broadcast-dlt-handler',
  /** That attempt's error message (at most 2000 characters). */
  error: 'x-broadcast-dlt-error',
  /** Calls made, the first included. */
  attempts: 'x-broadcast-dlt-attempts',
  /** The instance whose handler failed. */
  instance: 'x-broadcast-dlt-instance',
} as const;

const MAX_ERROR_LENGTH = 2_000;

/** Where a dead letter comes from and why. */
export interface DeadLetterSource {
  fullTopic: string;
  partition: number;
  record: IncomingRecord;
  handler: string;
  error: unknown;
  attempts: number;
  instanceId: string;
}

/**
 * The dead letter of a record: its key, value bytes and headers as received (so a consumer
 * of the dead-letter topic can publish it again unchanged), plus the DeadLetterHeaders. An
 * original header of the same name (a record dead-lettered twice) is replaced.
 */
export function deadLetterRecord(source: DeadLetterSource): RawOutgoingRecord {
  const { record } = source;
  const headers: Record<string, Buffer | string | (Buffer | string)[]> = {};
  for (const [name, value] of Object.entries(record.headers ?? {}))
    if (value !== undefined) headers[name] = value;
  const H = DeadLetterHeaders;
  headers[H.topic] = source.fullTopic;
  headers[H.partition] = String(source.partition);
  headers[H.offset] = record.offset;
  headers[H.timestamp] = record.timestamp;
  headers[H.handler] = source.handler;
  headers[H.error] = errorMessage(source.error).slice(0, MAX_ERROR_LENGTH);
  headers[H.attempts] = String(source.attempts);
  headers[H.instance] = source.instanceId;
  return { key: record.key, value: record.value, headers };
}
