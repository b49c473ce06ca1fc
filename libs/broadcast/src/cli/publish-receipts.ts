import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { BroadcastRoster } from '../core/features/roster/broadcast-roster.js';
import { PublishFeatures } from '../core/publishing/publish-features.js';
import { ReceiptTracker } from '../core/features/receipts/receipt-tracker.js';
import { targets } from '../core/features/targeting/targeting.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import type {
  OperatorKafkaPort,
  OperatorRecord,
} from '../interfaces/broadcast-operator.interface.js';
import type { BroadcastReceipt } from '../interfaces/broadcast-receipt.interface.js';
import type { IncomingRecord, KafkaAdminPort } from '../interfaces/kafka-port.interface.js';
import { errorMessage } from '../shared/async.utils.js';
import type { PublishRequest } from './publish-request.js';

export interface ReceiptPublishDeps {
  /** Publishes the message and reads the acknowledgements. */
  kafka: OperatorKafkaPort;
  /** Lists the live instances (liveMembers): who is expected to answer. */
  rosterAdmin: KafkaAdminPort;
  prefix: string;
  /** The CLI's id as a publisher: the instances key their acknowledgements with it. */
  instanceId: string;
  logger: BroadcastLogger;
}

export interface PublishedWithReceipt {
  partition: number;
  offset: string;
  receipt: BroadcastReceipt;
}

/** A publisher id of its own per run, as an engine's default instanceId is made. */
export function cliInstanceId(): string {
  return `cli-${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/**
 * Publishes as an engine's publisher does with `receipts`, reusing its parts: the roster says who
 * is expected (live, reading the topic, answering receipts, targeted), the message carries the
 * receipt id and the CLI's id, and the CLI reads the receipts topic for the acknowledgements
 * keyed by its id (through a throwaway group, as `tail` does) from before the message is sent.
 */
export async function publishWithReceipts(
  deps: ReceiptPublishDeps,
  topic: string,
  request: PublishRequest & { receipts: NonNullable<PublishRequest['receipts']> },
): Promise<PublishedWithReceipt> {
  const { kafka, prefix, instanceId, logger } = deps;
  const roster = new BroadcastRoster(
    { topicPrefix: prefix, intervalMs: 0 },
    deps.rosterAdmin,
    logger,
  );
  const acksTopic = prefix + request.receipts.topic;
  // The CLI only publishes: it never acknowledges anything itself.
  const tracker = new ReceiptTracker(instanceId, acksTopic, async () => undefined, logger);
  // Joining a throwaway group costs a moment: skip it when nobody would answer. (An instance
  // that starts between this look and the publish's own is expected, and counted missing.)
  const answering = (await roster.refresh()).some(
    (i) => i.receipts && i.topics.includes(topic) && targets(request.to, undefined, i),
  );
  const stop = new AbortController();
  const reading = answering
    ? (await readAcks(kafka, acksTopic, tracker, stop.signal)).reading
    : undefined;
  reading?.catch((error: unknown) =>
    logger.warn(`stopped reading ${acksTopic} for acknowledgements: ${errorMessage(error)}`),
  );
  const features = new PublishFeatures({
    instanceId,
    roster,
    receipts: tracker,
    reading: () => true,
    logger,
  });
  let where: { partition: number; offset: string } | undefined;
  try {
    const receipt = (await features.send(
      topic,
      {
        headers: request.headers,
        to: request.to,
        receipts: { timeoutMs: request.receipts.timeoutMs },
      },
      async (headers) => {
        where = await kafka.publish(prefix + topic, {
          key: request.key,
          value: request.value,
          headers: headers ?? {},
        });
      },
    )) as BroadcastReceipt;
    return { ...where!, receipt };
  } finally {
    stop.abort();
    await reading?.catch(() => undefined);
  }
}

/**
 * Starts reading the acknowledgements; resolves once every one written from now on will be seen,
 * with the reading (which ends when `signal` aborts).
 */
async function readAcks(
  kafka: OperatorKafkaPort,
  topic: string,
  tracker: ReceiptTracker,
  signal: AbortSignal,
): Promise<{ reading: Promise<void> }> {
  let positioned!: () => void;
  const ready = new Promise<void>((resolve) => (positioned = resolve));
  const reading = kafka.read(topic, {
    signal,
    positioned,
    onRecord: (record) => tracker.accept(incoming(record)),
  });
  const failed = reading.then(
    () => {
      throw new Error(`--receipts: reading ${topic} ended before it started`);
    },
    (error: unknown) => {
      throw new Error(
        `--receipts: cannot read the receipts topic ${topic}: ${errorMessage(error)} (is --receipts-topic the application's receipts.topic?)`,
      );
    },
  );
  await Promise.race([ready, failed]);
  return { reading };
}

/** The tracker reads keys and values as the engine's consumer hands them over: bytes. */
function incoming(record: OperatorRecord): IncomingRecord {
  return {
    key: record.key === null ? null : Buffer.from(record.key, 'utf8'),
    value: record.value === null ? null : Buffer.from(record.value, 'utf8'),
    timestamp: String(record.timestamp),
    offset: record.offset,
  };
}
