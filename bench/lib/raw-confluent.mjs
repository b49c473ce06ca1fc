// Baseline R on @confluentinc/kafka-javascript (librdkafka): one raw KafkaConsumer per instance
// with a fresh random group, the counterpart of startRawConsumer() (raw kafkajs) and
// startRawPlatformaticConsumer(), through the same native API the adapter uses, with the same
// consumer settings where they map, and a raw Producer for the sides that publish. The package is
// not a dependency of the workspace: scripts/confluent-client.mjs puts its build into
// node_modules (npm test and .ci/run do it), and sides.mjs adds these sides only when it loads.
import { createRequire } from 'node:module';
import { CONSUMER_DEFAULTS, now, packageVersion, rawGroupId } from './common.mjs';

const require = createRequire(import.meta.url);
const { KafkaConsumer, Producer } = require('@confluentinc/kafka-javascript');

export const CONFLUENT_VERSION = packageVersion('@confluentinc/kafka-javascript');

/** ERR__ASSIGN_PARTITIONS: the rebalance event that hands over an assignment. */
const ASSIGN = -175;
/** Records handed over per consume call (the loop awaits onMessage for each, in order). */
const BATCH = 100;
/**
 * The longest one consume call blocks, as the adapter's (confluent-group-consumer.ts): end-of-log
 * events reach JavaScript when the call returns, so the binding's default (1 s) would add up to
 * a second to R's ready (measured: 1.5-1.8 s against the others' 0.3-0.4 s).
 */
const CONSUME_WAIT_MS = 100;

/**
 * What R on librdkafka sets, next to what R on kafkajs sets (CONSUMER_DEFAULTS): auto-commit (as
 * kafkajs's autoCommit), the latest offset for a fresh group (fromBeginning false), READ_COMMITTED,
 * and end-of-log events, by which the first fetch answer after the join is seen.
 */
export const RAW_CONFLUENT_SETTINGS = Object.freeze({
  'session.timeout.ms': CONSUMER_DEFAULTS.sessionTimeout,
  'heartbeat.interval.ms': CONSUMER_DEFAULTS.heartbeatInterval,
  'fetch.wait.max.ms': CONSUMER_DEFAULTS.maxWaitTimeInMs,
  'max.poll.interval.ms': Math.max(CONSUMER_DEFAULTS.rebalanceTimeout, 10_000),
  'topic.metadata.refresh.interval.ms': CONSUMER_DEFAULTS.metadataMaxAge,
  'enable.auto.commit': true,
  'isolation.level': 'read_committed',
  'enable.partition.eof': true,
});

/** Settles with a callback-style call's answer. */
const called = (call) =>
  new Promise((resolve, reject) => call((err, value) => (err ? reject(err) : resolve(value))));

/**
 * R on @confluentinc/kafka-javascript: a KafkaConsumer with a fresh random group on `topics`.
 * `ready` resolves at the first end-of-log event after the assignment, the first fetch answer
 * (on an idle topic, at its end); `marks.joined` is the assignment. librdkafka looks up its start
 * offsets inside the client, so `marks.listOffsets` stays undefined. `onMessage(topic, partition,
 * message)` gets `message.value` as a Buffer and is awaited per record, as kafkajs's eachMessage.
 * `groupProtocol` 'consumer' joins with KIP-848 (the session settings are then the broker's).
 */
export function startRawConfluentConsumer({
  brokers,
  prefix,
  topics,
  onMessage,
  clientId = 'bench-raw-confluent',
  groupProtocol,
}) {
  const groupId = rawGroupId(prefix);
  const kip848 = groupProtocol === 'consumer';
  const { 'session.timeout.ms': _s, 'heartbeat.interval.ms': _h, ...rest } = RAW_CONFLUENT_SETTINGS;
  const consumer = new KafkaConsumer(
    {
      'bootstrap.servers': brokers.join(','),
      'client.id': clientId,
      'group.id': groupId,
      rebalance_cb: true,
      ...(kip848 ? { ...rest, 'group.protocol': 'consumer' } : RAW_CONFLUENT_SETTINGS),
    },
    { 'auto.offset.reset': 'latest' },
  );
  const marks = { t0: now(), joined: undefined, listOffsets: undefined, ready: undefined };
  let resolveReady;
  const ready = new Promise((r) => (resolveReady = r));
  consumer.on('rebalance', (err) => {
    if (err?.code === ASSIGN) marks.joined ??= now();
  });
  consumer.on('partition.eof', () => {
    if (marks.joined === undefined || marks.ready !== undefined) return;
    marks.ready = now();
    resolveReady();
  });
  consumer.setDefaultConsumeTimeout(CONSUME_WAIT_MS);
  let stopping = false;
  const started = (async () => {
    await called((cb) => consumer.connect({}, cb));
    consumer.subscribe(topics);
    while (!stopping) {
      const records = await called((cb) => consumer.consume(BATCH, cb));
      for (const m of records) {
        const pending = onMessage?.(m.topic, m.partition, m);
        if (pending) await pending;
      }
    }
  })();
  started.catch(() => undefined);
  return {
    groupId,
    consumer,
    marks,
    // A start that fails before its first fetch rejects `ready`.
    ready: Promise.race([ready, started.then(() => ready)]),
    stop: async () => {
      stopping = true;
      // Leaves the group (librdkafka's close), as kafkajs's disconnect() does.
      await called((cb) => consumer.disconnect(cb)).catch(() => undefined);
      await started.catch(() => undefined);
    },
  };
}

/** A raw librdkafka producer: acks all, kafkajs's partitioner for a key (murmur2, as the adapter). */
export function rawConfluentProducer(brokers, clientId = 'bench-raw-confluent-producer') {
  const producer = new Producer({
    'bootstrap.servers': brokers.join(','),
    'client.id': clientId,
    acks: -1,
    partitioner: 'murmur2_random',
    dr_cb: true,
    'linger.ms': 0,
  });
  const pending = new Map();
  let next = 0;
  producer.on('delivery-report', (err, report) => {
    const settle = pending.get(report.opaque);
    pending.delete(report.opaque);
    settle?.(err);
  });
  producer.setPollInterval(5);
  const connected = called((cb) => producer.connect({}, cb));
  return {
    /** Resolves when the broker acknowledged the record (its delivery report). */
    send: async (topic, value) => {
      await connected;
      const opaque = next++;
      await new Promise((resolve, reject) => {
        pending.set(opaque, (err) => (err ? reject(err) : resolve()));
        producer.produce(topic, null, Buffer.from(value), null, Date.now(), opaque);
      });
    },
    close: async () => {
      await connected.catch(() => undefined);
      await called((cb) => producer.disconnect(cb)).catch(() => undefined);
    },
  };
}
