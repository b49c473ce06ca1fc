import { BroadcastOptionsError } from '../../errors/broadcast-options.error.js';
import type { BroadcastModuleOptions } from '../../interfaces/broadcast-module-options.interface.js';
import { resolveBroadcastOptions } from './broadcast-options.resolver.js';
import { closest } from './option-keys.js';

const kafka = { brokers: ['127.0.0.1:9092'] };

function refused(options: object): BroadcastOptionsError {
  try {
    resolveBroadcastOptions(options as BroadcastModuleOptions);
  } catch (error) {
    if (error instanceof BroadcastOptionsError) return error;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(options)}`);
}

describe('an unknown option key fails at start-up, naming it and the key meant', () => {
  it.each([
    ['topicPrefx', { kafka, topicPrefx: 'x.' }, 'topicPrefx', 'topicPrefix'],
    [
      'kafka.clientID',
      { kafka: { ...kafka, clientID: 'svc' } },
      'kafka.clientID',
      'kafka.clientId',
    ],
    [
      'heartbeat.interval',
      { kafka, heartbeat: { interval: 5_000 } },
      'heartbeat.interval',
      'heartbeat.intervalMs',
    ],
    [
      'lock.datasource',
      { kafka, lock: { datasource: 'db' } },
      'lock.datasource',
      'lock.dataSource',
    ],
    [
      "kafka.retry.initialRetryTime (kafkajs's spelling)",
      { kafka: { ...kafka, retry: { initialRetryTime: 100 } } },
      'kafka.retry.initialRetryTime',
      'kafka.retry.initialRetryTimeMs',
    ],
    [
      'consumer.sessionTimeout',
      { kafka, consumer: { sessionTimeout: 6_000 } },
      'consumer.sessionTimeout',
      'consumer.sessionTimeoutMs',
    ],
    [
      'topics.partitions',
      { kafka, topics: { partitions: 3 } },
      'topics.partitions',
      'topics.numPartitions',
    ],
    [
      'health.maxStaleness',
      { kafka, health: { maxStaleness: 1 } },
      'health.maxStaleness',
      'health.maxStalenessMs',
    ],
    ['roster.interval', { kafka, roster: { interval: 1 } }, 'roster.interval', 'roster.intervalMs'],
    ['receipts.topics', { kafka, receipts: { topics: 'r' } }, 'receipts.topics', 'receipts.topic'],
    [
      'telemetry.trace',
      { kafka, telemetry: { trace: false } },
      'telemetry.trace',
      'telemetry.traces',
    ],
    [
      'deadLetter.Topic',
      { kafka, deadLetter: { Topic: 'dlt' } },
      'deadLetter.Topic',
      'deadLetter.topic',
    ],
    ['maxGroup', { kafka, maxGroup: 3 }, 'maxGroup', 'maxGroups'],
  ])('%s', (_title, options, option, meant) => {
    const error = refused(options);
    expect(error.option).toBe(option);
    expect(error.message).toBe(
      `Unknown BroadcastModule option "${option}": did you mean "${meant}"?`,
    );
  });

  it('a key close to none lists what that level accepts', () => {
    const error = refused({ kafka, consumer: { fetchSize: 1 } });
    expect(error.option).toBe('consumer.fetchSize');
    expect(error.message).toBe(
      'Unknown BroadcastModule option "consumer.fetchSize": expected one of sessionTimeoutMs, heartbeatIntervalMs, maxWaitTimeMs, metadataMaxAgeMs at that level.',
    );
  });

  it('is reported before the values: the misspelled key is the first thing to fix', () => {
    expect(refused({ kafka, maxGroups: 0, topicPrefx: 'x.' }).option).toBe('topicPrefx');
  });

  it('leaves objects handed on to others alone: ssl, sasl, lock.provider, replay topics', () => {
    const provider = { mode: 'none', tryLock: () => Promise.resolve(null), extra: 1 };
    const options = {
      kafka: {
        ...kafka,
        ssl: { ca: ['pem'], rejectUnauthorized: true, servername: 'kafka' },
        sasl: { mechanism: 'plain', username: 'u', password: 'p', authorizationIdentity: 'x' },
      },
      lock: { provider },
      replay: { 'any.topic': 1_000 },
    };
    expect(() =>
      resolveBroadcastOptions(options as unknown as BroadcastModuleOptions),
    ).not.toThrow();
  });

  it('sections given as false or as a non-object are left to the value checks', () => {
    expect(() =>
      resolveBroadcastOptions({
        kafka,
        lock: false,
        heartbeat: false,
        receipts: false,
        telemetry: false,
      }),
    ).not.toThrow();
    expect(refused({ kafka, consumer: 5 }).option).toBe('consumer');
  });
});

describe('closest', () => {
  it('another case of the same key, or a few edits away; nothing when far', () => {
    expect(closest('CLIENTID', ['clientId', 'brokers'])).toBe('clientId');
    expect(closest('brokrs', ['clientId', 'brokers'])).toBe('brokers');
    expect(closest('ab', ['clientId', 'brokers'])).toBeUndefined();
    expect(closest('fetchSize', ['sessionTimeoutMs', 'maxWaitTimeMs'])).toBeUndefined();
  });
});
