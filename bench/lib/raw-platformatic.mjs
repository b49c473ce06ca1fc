// Baseline R on @platformatic/kafka: one raw Consumer per instance with a fresh random group, the
// counterpart of startRawConsumer() (raw kafkajs) in common.mjs, with the same consumer settings
// where they map, and a raw Producer for the sides that publish.
import {
  Consumer,
  MessagesStreamFallbackModes,
  MessagesStreamModes,
  Producer,
  compatibilityPartitioner,
  stringSerializers,
} from '@platformatic/kafka';
import { CONSUMER_DEFAULTS, now, packageVersion, rawGroupId } from './common.mjs';

/** kafkajs's default per-partition fetch size (this client's default is its 10 MB maxBytes). */
const MAX_BYTES_PER_PARTITION = 1_048_576;

export const PLATFORMATIC_VERSION = packageVersion('@platformatic/kafka');

/** What R on @platformatic/kafka sets, next to what R on kafkajs sets (CONSUMER_DEFAULTS). */
export const RAW_PLATFORMATIC_SETTINGS = Object.freeze({
  sessionTimeout: CONSUMER_DEFAULTS.sessionTimeout,
  heartbeatInterval: CONSUMER_DEFAULTS.heartbeatInterval,
  maxWaitTime: CONSUMER_DEFAULTS.maxWaitTimeInMs,
  rebalanceTimeout: CONSUMER_DEFAULTS.rebalanceTimeout,
  metadataMaxAge: CONSUMER_DEFAULTS.metadataMaxAge,
  maxBytesPerPartition: MAX_BYTES_PER_PARTITION,
  // A fresh group has no committed offset: OffsetFetch, then the high watermark (ListOffsets
  // latest), as kafkajs does with fromBeginning false. Autocommit after each batch (its default),
  // as kafkajs's autoCommit does with no interval or threshold. Classic protocol, READ_COMMITTED.
  mode: MessagesStreamModes.COMMITTED,
  fallbackMode: MessagesStreamFallbackModes.LATEST,
});

/**
 * R on @platformatic/kafka: a Consumer with a fresh random group that consumes `topics`.
 * `ready` resolves at the stream's first fetch answer (the stream is made after the join, so it is
 * the first fetch after the join, like R on kafkajs); `marks.listOffsets` is when the stream's start
 * offsets were fixed (ListOffsets and OffsetFetch answered), before that fetch.
 * `onMessage(topic, partition, message)` gets `message.value` as a Buffer and is awaited per message
 * (the stream's async iterator), as kafkajs's eachMessage is. `groupProtocol` 'consumer' joins with
 * KIP-848 (the rest of the settings unchanged).
 */
export function startRawPlatformaticConsumer({
  brokers,
  prefix,
  topics,
  onMessage,
  clientId = 'bench-raw-platformatic',
  groupProtocol,
}) {
  const groupId = rawGroupId(prefix);
  const {
    sessionTimeout,
    heartbeatInterval,
    maxWaitTime,
    rebalanceTimeout,
    metadataMaxAge,
    maxBytesPerPartition,
    mode,
    fallbackMode,
  } = RAW_PLATFORMATIC_SETTINGS;
  const consumer = new Consumer({
    bootstrapBrokers: brokers,
    clientId,
    groupId,
    sessionTimeout,
    heartbeatInterval,
    rebalanceTimeout,
    maxWaitTime,
    metadataMaxAge,
    maxBytesPerPartition,
    autocreateTopics: false,
    // 'consumer' (KIP-848) on the production-defaults start of bench 12; the client's classic
    // default everywhere else.
    ...(groupProtocol && { groupProtocol }),
  });
  const marks = {
    t0: now(),
    joined: undefined,
    listOffsets: undefined,
    ready: undefined,
  };
  let memberId;
  let resolveReady;
  const ready = new Promise((r) => (resolveReady = r));
  consumer.on('consumer:group:join', (payload) => {
    memberId = payload.memberId;
    marks.joined ??= now();
  });
  let stream;
  const started = (async () => {
    stream = await consumer.consume({ topics, mode, fallbackMode });
    stream.on('offsets', () => (marks.listOffsets ??= now()));
    stream.on('fetch', () => {
      if (marks.ready !== undefined) return;
      marks.ready = now();
      resolveReady();
    });
    for await (const message of stream) {
      const pending = onMessage?.(message.topic, message.partition, message);
      if (pending) await pending;
    }
  })();
  started.catch(() => undefined);
  return {
    groupId,
    consumer,
    marks,
    get memberId() {
      return memberId;
    },
    // A start that fails before its first fetch rejects `ready`.
    ready: Promise.race([ready, started.then(() => ready)]),
    stop: async () => {
      // Leaves the group (LeaveGroup) and closes the stream, as kafkajs's disconnect() does.
      await consumer.close(true).catch(() => undefined);
      // On KIP-848 (groupProtocol 'consumer', 1.35.0) close() leaves the group but does not end
      // the stream, so its iterator would wait forever: close the stream too.
      await stream?.close().catch(() => undefined);
      await started.catch(() => undefined);
    },
  };
}

/** A raw @platformatic/kafka producer with kafkajs's partitioner for a key (as the adapter sets). */
export function rawPlatformaticProducer(brokers, clientId = 'bench-raw-platformatic-producer') {
  const producer = new Producer({
    bootstrapBrokers: brokers,
    clientId,
    serializers: stringSerializers,
    partitioner: compatibilityPartitioner,
    autocreateTopics: false,
  });
  return {
    /** acks all, as the engine's publisher and R on kafkajs send. */
    send: (topic, value) => producer.send({ acks: -1, messages: [{ topic, value }] }),
    close: () => producer.close().catch(() => undefined),
  };
}
