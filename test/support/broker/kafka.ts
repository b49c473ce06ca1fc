// Shared helpers for tests that talk to the real broker (see test/global-setup.ts).
import { inject } from 'vitest';
import { Kafka, logLevel, type Admin, type ITopicConfig } from 'kafkajs';
import { runId } from './run-id.js';

export { runId } from './run-id.js';

/** The run's broker addresses, e.g. ['127.0.0.1:25824']. */
export function kafkaBrokers(): string[] {
  const list = inject('kafkaBrokers') || process.env.KAFKA_BROKERS;
  if (!list)
    throw new Error('no Kafka broker: test/global-setup.ts did not run and KAFKA_BROKERS is unset');
  return list.split(',');
}

/**
 * 'bt.<runId>.<name>.' — the prefix for every topic and group a test creates, so runs and
 * tests never see each other's data on a shared broker. Only [a-zA-Z0-9._-] survive.
 */
export function testPrefix(name: string): string {
  const safe = name.replace(/[^a-zA-Z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'test';
  return `bt.${runId()}.${safe}.`;
}

/** A kafkajs client for the run's broker, silent (tests assert; they don't read logs). */
export function newKafka(clientId = `test-${runId()}`): Kafka {
  return new Kafka({
    clientId,
    brokers: kafkaBrokers(),
    logLevel: logLevel.NOTHING,
  });
}

/** A connected admin client; the caller disconnects it. */
export async function newAdmin(): Promise<Admin> {
  const admin = newKafka().admin();
  await admin.connect();
  return admin;
}

/**
 * Creates topics and waits until every partition has a leader. Use it instead of kafkajs
 * `createTopics({ waitForLeaders: true })`: on KRaft that polls the metadata of one broker
 * and gives up on UNKNOWN_TOPIC_OR_PARTITION ("This server does not host this topic-partition")
 * when that broker has not caught up with the controller yet (seen with Kafka 3.9.1 on 3 nodes,
 * and on one loaded node in a CI run). The library tolerates that answer; so does this: a
 * retriable answer to the create is asked again, and the leaders are polled, until the deadline.
 */
export async function createTopics(
  admin: Admin,
  topics: ITopicConfig[],
  { timeoutMs = 30_000 } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const names = topics.map((t) => t.topic);
  await waitFor(
    async () => {
      try {
        await admin.createTopics({ topics, waitForLeaders: false });
        return true;
      } catch (error) {
        if (!isRetriable(error)) throw new FatalCreate(error);
        throw error;
      }
    },
    { timeoutMs, intervalMs: 100, message: `could not create ${names.join(', ')}`, fatal },
  );
  await waitFor(
    async () => {
      const { topics: found } = await admin.fetchTopicMetadata({
        topics: names,
      });
      return found.every(
        (t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0),
      );
    },
    {
      timeoutMs: Math.max(deadline - Date.now(), 0),
      intervalMs: 100,
      message: `no leaders for ${names.join(', ')}`,
    },
  );
}

/** kafkajs marks UNKNOWN_TOPIC_OR_PARTITION, a moving controller and the like as retriable. */
function isRetriable(error: unknown): boolean {
  return (error as { retriable?: boolean } | undefined)?.retriable === true;
}

/** An answer the create must not be retried on (a bad config, a refused ACL). */
class FatalCreate extends Error {
  constructor(readonly original: unknown) {
    super(original instanceof Error ? original.message : String(original));
  }
}

function fatal(error: unknown): unknown {
  return error instanceof FatalCreate ? error.original : undefined;
}

export interface WaitForOptions {
  timeoutMs?: number;
  intervalMs?: number;
  message?: string;
  /** An error for which this returns something ends the wait at once, rejecting with that. */
  fatal?: (error: unknown) => unknown;
}

/**
 * Polls `predicate` until it returns a truthy value (which is returned) or the deadline passes
 * (rejects with `message` and the last error). The project's standard instead of sleeps.
 */
export async function waitFor<T>(
  predicate: () => T | Promise<T>,
  {
    timeoutMs = 10_000,
    intervalMs = 50,
    message = 'condition not met',
    fatal,
  }: WaitForOptions = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await predicate();
      if (value) return value as NonNullable<T>;
    } catch (error) {
      const stop = fatal?.(error);
      if (stop !== undefined) throw stop;
      lastError = error;
    }
    if (Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
  throw new Error(`waitFor timed out after ${timeoutMs} ms: ${message}${cause}`);
}
