import { errorMessage } from '../../shared/async.utils.js';

/** The fields of a kafkajs 2.2.4 error the library reads. */
export interface KafkajsErrorLike {
  name?: string;
  message?: string;
  type?: string;
  code?: string;
  topic?: string;
  cause?: unknown;
  originalError?: unknown;
  errors?: unknown[];
  groups?: { error?: unknown }[];
}

/**
 * The error, its causes and the errors it aggregates, depth first: kafkajs wraps the error
 * that matters (a socket error, a broker's error code) in retry and aggregate errors.
 */
export function* chain(error: unknown, depth = 0): Generator<KafkajsErrorLike> {
  if (!error || typeof error !== 'object' || depth > 5) return;
  const e = error as KafkajsErrorLike;
  yield e;
  yield* chain(e.cause, depth + 1);
  yield* chain(e.originalError, depth + 1);
  for (const inner of e.errors ?? []) yield* chain(inner, depth + 1);
  for (const group of e.groups ?? []) yield* chain(group.error, depth + 1);
}

/**
 * Failures after which a kafkajs client may be stuck: its broker pool can keep a broker it never
 * connected ("Broker not connected" on every call), and when every broker failed its metadata
 * call answers null (a TypeError on `topicMetadata`). The client is discarded and made afresh.
 */
const BROKEN_CLIENT = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSBrokerNotFound',
  'KafkaJSNumberOfRetriesExceeded',
]);
const BROKEN_MESSAGE = /not connected|topicMetadata/i;

/** True when `error` says the client's connections broke, not that Kafka answered no. */
export function isBrokenConnection(error: unknown): boolean {
  return [...chain(error)].some(
    (e) => BROKEN_CLIENT.has(e.name ?? '') || BROKEN_MESSAGE.test(e.message ?? ''),
  );
}

/** The innermost message: kafkajs wraps the socket error in retry errors that add nothing. */
export function rootMessage(error: unknown): string {
  let message = errorMessage(error);
  for (const e of chain(error)) if (e.message) message = e.message;
  return message;
}
