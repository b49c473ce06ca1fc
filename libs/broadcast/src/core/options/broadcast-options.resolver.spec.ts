import { BroadcastOptionsError } from '../../errors/broadcast-options.error.js';
import type { BroadcastModuleOptions } from '../../interfaces/broadcast-module-options.interface.js';
import * as D from './broadcast.defaults.js';
import { resolveBroadcastOptions } from './broadcast-options.resolver.js';

const VALID: BroadcastModuleOptions = {
  kafka: { brokers: ['127.0.0.1:9092'] },
};

/** VALID with `patch` applied; `undefined` values are kept as explicit undefined. */
function withOptions(patch: Record<string, unknown>): BroadcastModuleOptions {
  return { ...VALID, ...patch } as BroadcastModuleOptions;
}

function resolveError(options: unknown): BroadcastOptionsError {
  try {
    resolveBroadcastOptions(options as BroadcastModuleOptions);
  } catch (error) {
    if (error instanceof BroadcastOptionsError) return error;
    throw error;
  }
  throw new Error('resolveBroadcastOptions accepted the options');
}

const NAME_RULE = /a string of letters, digits, "\.", "_" or "-" \(at most 200\)/;
const NON_EMPTY_NAME_RULE = /a non-empty string of letters, digits, "\.", "_" or "-"/;
const INT_RULE = /an integer from 1 to 2147483647/;
const BROKERS_RULE = /a non-empty array of "host:port" strings or a function/;

interface Case {
  title: string;
  options: unknown;
  option: string;
  message: RegExp;
}

const cases: Case[] = [
  // the object itself
  {
    title: 'options null',
    options: null,
    option: 'options',
    message: /"options": expected an object, got null/,
  },
  {
    title: 'options an array',
    options: [],
    option: 'options',
    message: /"options": expected an object, got \[\]/,
  },
  // kafka
  {
    title: 'kafka missing',
    options: {},
    option: 'kafka',
    message: /"kafka": expected an object with brokers, got undefined/,
  },
  {
    title: 'kafka a string',
    options: { kafka: 'localhost:9092' },
    option: 'kafka',
    message: /"kafka": expected an object with brokers, got "localhost:9092"/,
  },
  {
    title: 'kafka.brokers missing',
    options: { kafka: {} },
    option: 'kafka.brokers',
    message: new RegExp(`"kafka\\.brokers": expected ${BROKERS_RULE.source}, got undefined`),
  },
  {
    title: 'kafka.brokers empty',
    options: { kafka: { brokers: [] } },
    option: 'kafka.brokers',
    message: new RegExp(`"kafka\\.brokers": expected ${BROKERS_RULE.source}, got \\[\\]`),
  },
  {
    title: 'kafka.client not a known client',
    options: { kafka: { brokers: ['a:1'], client: 'rdkafka' } },
    option: 'kafka.client',
    message: /"kafka\.client": expected 'kafkajs', 'platformatic' or 'confluent', got "rdkafka"/,
  },
  {
    title: 'kafka.groupProtocol not a known protocol',
    options: { kafka: { brokers: ['a:1'], groupProtocol: 'kip848' } },
    option: 'kafka.groupProtocol',
    message: /"kafka\.groupProtocol": expected 'classic', 'consumer' or 'auto', got "kip848"/,
  },
  {
    title: "kafka.groupProtocol 'consumer' with kafka.client 'kafkajs'",
    options: { kafka: { brokers: ['a:1'], client: 'kafkajs', groupProtocol: 'consumer' } },
    option: 'kafka.groupProtocol',
    message:
      /"kafka\.groupProtocol": expected 'classic' or 'auto' with kafkajs \(the KIP-848 protocol 'consumer' needs kafka\.client 'platformatic'/,
  },
  {
    title: 'kafka.brokers not strings',
    options: { kafka: { brokers: [9092] } },
    option: 'kafka.brokers',
    message: new RegExp(`"kafka\\.brokers": expected ${BROKERS_RULE.source}, got \\[9092\\]`),
  },
  {
    title: 'kafka.brokers with an empty string',
    options: { kafka: { brokers: ['a:1', ''] } },
    option: 'kafka.brokers',
    message: /"kafka\.brokers".*got \["a:1",""\]/,
  },
  {
    title: 'kafka.brokers a string',
    options: { kafka: { brokers: 'a:1' } },
    option: 'kafka.brokers',
    message: /"kafka\.brokers".*got "a:1"/,
  },
  // kafka.sasl
  {
    title: 'kafka.sasl with an unknown mechanism',
    options: withOptions({ kafka: { brokers: ['a:1'], sasl: { mechanism: 'gssapi' } } }),
    option: 'kafka.sasl.mechanism',
    message:
      /"kafka\.sasl\.mechanism": expected 'plain', 'scram-sha-256', 'scram-sha-512' or 'oauthbearer', got "gssapi"/,
  },
  {
    title: 'kafka.sasl oauthbearer without a provider',
    options: withOptions({ kafka: { brokers: ['a:1'], sasl: { mechanism: 'oauthbearer' } } }),
    option: 'kafka.sasl.oauthBearerProvider',
    message:
      /"kafka\.sasl\.oauthBearerProvider": expected a function returning a Promise of \{ value: token \}, got undefined/,
  },
  {
    title: 'kafka.sasl oauthbearer with a token string instead of a provider',
    options: withOptions({
      kafka: { brokers: ['a:1'], sasl: { mechanism: 'oauthbearer', oauthBearerProvider: 'ey' } },
    }),
    option: 'kafka.sasl.oauthBearerProvider',
    message: /"kafka\.sasl\.oauthBearerProvider": expected a function/,
  },
  {
    title: 'kafka.sasl scram without a password',
    options: withOptions({
      kafka: { brokers: ['a:1'], sasl: { mechanism: 'scram-sha-512', username: 'svc' } },
    }),
    option: 'kafka.sasl.password',
    message: /"kafka\.sasl\.password": expected a string, got undefined/,
  },
  {
    title: 'kafka.sasl not an object',
    options: withOptions({ kafka: { brokers: ['a:1'], sasl: 'svc:secret' } }),
    option: 'kafka.sasl',
    message:
      /"kafka\.sasl": expected \{ mechanism, username, password \} or \{ mechanism: 'oauthbearer', oauthBearerProvider \}/,
  },
  // kafka client settings
  {
    title: 'kafka.connectionTimeoutMs zero',
    options: withOptions({ kafka: { brokers: ['a:1'], connectionTimeoutMs: 0 } }),
    option: 'kafka.connectionTimeoutMs',
    message: new RegExp(`"kafka\\.connectionTimeoutMs": expected ${INT_RULE.source}, got 0`),
  },
  {
    title: 'kafka.requestTimeoutMs a string',
    options: withOptions({ kafka: { brokers: ['a:1'], requestTimeoutMs: '30s' } }),
    option: 'kafka.requestTimeoutMs',
    message: new RegExp(`"kafka\\.requestTimeoutMs": expected ${INT_RULE.source}, got "30s"`),
  },
  {
    title: 'kafka.retry a number',
    options: withOptions({ kafka: { brokers: ['a:1'], retry: 5 } }),
    option: 'kafka.retry',
    message:
      /"kafka\.retry": expected \{ retries\?, initialRetryTimeMs\?, maxRetryTimeMs\? \}, got 5/,
  },
  {
    title: 'kafka.retry.retries negative',
    options: withOptions({ kafka: { brokers: ['a:1'], retry: { retries: -1 } } }),
    option: 'kafka.retry.retries',
    message: /"kafka\.retry\.retries": expected an integer from 0 to 2147483647, got -1/,
  },
  {
    title: 'kafka.retry.initialRetryTimeMs fractional',
    options: withOptions({ kafka: { brokers: ['a:1'], retry: { initialRetryTimeMs: 0.5 } } }),
    option: 'kafka.retry.initialRetryTimeMs',
    message: new RegExp(
      `"kafka\\.retry\\.initialRetryTimeMs": expected ${INT_RULE.source}, got 0.5`,
    ),
  },
  {
    title: 'kafka.retry.maxRetryTimeMs below initialRetryTimeMs',
    options: withOptions({
      kafka: { brokers: ['a:1'], retry: { initialRetryTimeMs: 500, maxRetryTimeMs: 100 } },
    }),
    option: 'kafka.retry.maxRetryTimeMs',
    message:
      /"kafka\.retry\.maxRetryTimeMs": expected an integer from 500 \(initialRetryTimeMs\) to 2147483647, got 100/,
  },
  {
    title: 'kafka.retries together with kafka.retry.retries',
    options: withOptions({ kafka: { brokers: ['a:1'], retries: 3, retry: { retries: 5 } } }),
    option: 'kafka.retries',
    message:
      /"kafka\.retries": expected no value with kafka\.retry\.retries \(use kafka\.retry\.retries\), got 3/,
  },
  {
    title: 'kafka.retries negative',
    options: withOptions({ kafka: { brokers: ['a:1'], retries: -2 } }),
    option: 'kafka.retries',
    message: /"kafka\.retries": expected an integer from 0 to 2147483647, got -2/,
  },
  {
    title: 'kafka.logLevel unknown',
    options: withOptions({ kafka: { brokers: ['a:1'], logLevel: 'verbose' } }),
    option: 'kafka.logLevel',
    message:
      /"kafka\.logLevel": expected 'nothing', 'error', 'warn', 'info' or 'debug', got "verbose"/,
  },
  {
    title: 'kafka.logLevel a kafkajs number',
    options: withOptions({ kafka: { brokers: ['a:1'], logLevel: 4 } }),
    option: 'kafka.logLevel',
    message: /"kafka\.logLevel": expected 'nothing', 'error', 'warn', 'info' or 'debug', got 4/,
  },
  // topicPrefix
  {
    title: 'topicPrefix with a space',
    options: withOptions({ topicPrefix: 'my prefix' }),
    option: 'topicPrefix',
    message: new RegExp(`"topicPrefix": expected ${NAME_RULE.source}, got "my prefix"`),
  },
  {
    title: 'topicPrefix with a slash',
    options: withOptions({ topicPrefix: 'a/b.' }),
    option: 'topicPrefix',
    message: /"topicPrefix".*letters, digits.*got "a\/b\."/,
  },
  {
    title: 'topicPrefix too long',
    options: withOptions({ topicPrefix: 'x'.repeat(201) }),
    option: 'topicPrefix',
    message: /"topicPrefix".*at most 200/,
  },
  {
    title: 'topicPrefix a number',
    options: withOptions({ topicPrefix: 5 }),
    option: 'topicPrefix',
    message: /"topicPrefix".*got 5/,
  },
  // groupBaseName
  {
    title: 'groupBaseName empty',
    options: withOptions({ groupBaseName: '' }),
    option: 'groupBaseName',
    message: new RegExp(`"groupBaseName": expected ${NON_EMPTY_NAME_RULE.source}, got ""`),
  },
  {
    title: 'groupBaseName with bad chars',
    options: withOptions({ groupBaseName: 'group*' }),
    option: 'groupBaseName',
    message: /"groupBaseName".*letters, digits.*got "group\*"/,
  },
  // lock
  {
    title: 'lock true',
    options: withOptions({ lock: true }),
    option: 'lock',
    message:
      /"lock": expected \{ dataSource\?: string, provider\?: AdvisoryLockProvider, checkIntervalMs\?: number \} or false, got true/,
  },
  {
    title: 'lock.provider without tryLock',
    options: withOptions({ lock: { provider: { mode: 'postgres' } } }),
    option: 'lock.provider',
    message: /"lock.provider": expected an AdvisoryLockProvider \(with tryLock\) or a function/,
  },
  {
    title: 'lock a string',
    options: withOptions({ lock: 'postgres' }),
    option: 'lock',
    message: /"lock": expected \{ dataSource\?.* or false, got "postgres"/,
  },
  {
    title: 'lock null',
    options: withOptions({ lock: null }),
    option: 'lock',
    message: /"lock": expected .* or false, got null/,
  },
  {
    title: 'lock.dataSource empty',
    options: withOptions({ lock: { dataSource: '' } }),
    option: 'lock.dataSource',
    message: /"lock\.dataSource": expected a TypeORM DataSource name \(non-empty string\), got ""/,
  },
  {
    title: 'lock.dataSource not a string',
    options: withOptions({ lock: { dataSource: 1 } }),
    option: 'lock.dataSource',
    message: /"lock\.dataSource": expected a TypeORM DataSource name.*got 1/,
  },
  {
    title: 'lock.checkIntervalMs 0',
    options: withOptions({ lock: { checkIntervalMs: 0 } }),
    option: 'lock.checkIntervalMs',
    message: new RegExp(`"lock\\.checkIntervalMs": expected ${INT_RULE.source}, got 0`),
  },
  // maxGroups
  {
    title: 'maxGroups 0',
    options: withOptions({ maxGroups: 0 }),
    option: 'maxGroups',
    message: /"maxGroups": expected an integer from 1 to 1000000, got 0/,
  },
  {
    title: 'maxGroups 1.5',
    options: withOptions({ maxGroups: 1.5 }),
    option: 'maxGroups',
    message: /"maxGroups": expected an integer from 1 to 1000000, got 1\.5/,
  },
  {
    title: 'maxGroups negative',
    options: withOptions({ maxGroups: -3 }),
    option: 'maxGroups',
    message: /"maxGroups": expected an integer from 1 to 1000000, got -3/,
  },
  {
    title: 'maxGroups too large',
    options: withOptions({ maxGroups: 1_000_001 }),
    option: 'maxGroups',
    message: /"maxGroups": expected an integer from 1 to 1000000, got 1000001/,
  },
  {
    title: 'maxGroups a string',
    options: withOptions({ maxGroups: '5' }),
    option: 'maxGroups',
    message: /"maxGroups": expected an integer from 1 .*got "5"/,
  },
  {
    title: 'maxGroups NaN',
    options: withOptions({ maxGroups: NaN }),
    option: 'maxGroups',
    message: /"maxGroups": expected an integer from 1/,
  },
  // heartbeat
  {
    title: 'heartbeat true',
    options: withOptions({ heartbeat: true }),
    option: 'heartbeat',
    message: /"heartbeat": expected \{ intervalMs\?, jitter\?, topic\? \} or false, got true/,
  },
  {
    title: 'heartbeat a number',
    options: withOptions({ heartbeat: 1000 }),
    option: 'heartbeat',
    message: /"heartbeat": expected \{ intervalMs\?, jitter\?, topic\? \} or false, got 1000/,
  },
  {
    title: 'heartbeat.intervalMs 0',
    options: withOptions({ heartbeat: { intervalMs: 0 } }),
    option: 'heartbeat.intervalMs',
    message: new RegExp(`"heartbeat\\.intervalMs": expected ${INT_RULE.source}, got 0`),
  },
  {
    title: 'heartbeat.intervalMs negative',
    options: withOptions({ heartbeat: { intervalMs: -1000 } }),
    option: 'heartbeat.intervalMs',
    message: /"heartbeat\.intervalMs": expected an integer from 1.*got -1000/,
  },
  {
    title: 'heartbeat.jitter 1',
    options: withOptions({ heartbeat: { jitter: 1 } }),
    option: 'heartbeat.jitter',
    message: /"heartbeat\.jitter": expected a number in \[0, 1\), got 1/,
  },
  {
    title: 'heartbeat.jitter -0.1',
    options: withOptions({ heartbeat: { jitter: -0.1 } }),
    option: 'heartbeat.jitter',
    message: /"heartbeat\.jitter": expected a number in \[0, 1\), got -0\.1/,
  },
  {
    title: 'heartbeat.jitter NaN',
    options: withOptions({ heartbeat: { jitter: NaN } }),
    option: 'heartbeat.jitter',
    message: /"heartbeat\.jitter": expected a number in \[0, 1\)/,
  },
  {
    title: 'heartbeat.jitter a string',
    options: withOptions({ heartbeat: { jitter: '0.5' } }),
    option: 'heartbeat.jitter',
    message: /"heartbeat\.jitter": expected a number in \[0, 1\), got "0\.5"/,
  },
  {
    title: 'heartbeat.topic with bad chars',
    options: withOptions({ heartbeat: { topic: 'heart beat!' } }),
    option: 'heartbeat.topic',
    message: /"heartbeat\.topic": expected a string of letters, digits.*got "heart beat!"/,
  },
  {
    title: 'heartbeat.topic empty',
    options: withOptions({ heartbeat: { topic: '' } }),
    option: 'heartbeat.topic',
    message: new RegExp(`"heartbeat\\.topic": expected ${NON_EMPTY_NAME_RULE.source}, got ""`),
  },
  // timeouts
  {
    title: 'handlerTimeoutMs 0',
    options: withOptions({ handlerTimeoutMs: 0 }),
    option: 'handlerTimeoutMs',
    message: new RegExp(`"handlerTimeoutMs": expected ${INT_RULE.source}, got 0`),
  },
  {
    title: 'handlerTimeoutMs not below the session timeout',
    options: withOptions({ handlerTimeoutMs: 10_000 }),
    option: 'handlerTimeoutMs',
    message:
      /"handlerTimeoutMs": expected an integer below consumer\.sessionTimeoutMs \(10000\), got 10000/,
  },
  {
    title: 'handlerTimeoutMs 2.5',
    options: withOptions({ handlerTimeoutMs: 2.5 }),
    option: 'handlerTimeoutMs',
    message: /"handlerTimeoutMs": expected an integer from 1.*got 2\.5/,
  },
  {
    title: 'startupTimeoutMs 0',
    options: withOptions({ startupTimeoutMs: 0 }),
    option: 'startupTimeoutMs',
    message: new RegExp(`"startupTimeoutMs": expected ${INT_RULE.source}, got 0`),
  },
  {
    title: 'health.maxStalenessMs 0',
    options: withOptions({ health: { maxStalenessMs: 0 } }),
    option: 'health.maxStalenessMs',
    message: new RegExp(`"health\\.maxStalenessMs": expected ${INT_RULE.source}, got 0`),
  },
  {
    title: 'health.maxStalenessMs with heartbeat: false',
    options: withOptions({ heartbeat: false, health: { maxStalenessMs: 60_000 } }),
    option: 'health.maxStalenessMs',
    message: /"health\.maxStalenessMs": expected no value with heartbeat: false .*got 60000/,
  },
  {
    title: 'health.maxUnreadyMs 0',
    options: withOptions({ health: { maxUnreadyMs: 0 } }),
    option: 'health.maxUnreadyMs',
    message: new RegExp(`"health\\.maxUnreadyMs": expected ${INT_RULE.source}, got 0`),
  },
  {
    title: 'health.outageGraceMs 0',
    options: withOptions({ health: { outageGraceMs: 0 } }),
    option: 'health.outageGraceMs',
    message: new RegExp(`"health\\.outageGraceMs": expected ${INT_RULE.source}, got 0`),
  },
  {
    title: 'health.strict not a boolean',
    options: withOptions({ health: { strict: 'yes' } }),
    option: 'health.strict',
    message: /"health\.strict": expected true or false, got "yes"/,
  },
  {
    title: 'health.outageGraceMs with health.strict: true',
    options: withOptions({ health: { strict: true, outageGraceMs: 30_000 } }),
    option: 'health.outageGraceMs',
    message: /"health\.outageGraceMs": expected no value with health\.strict: true .*got 30000/,
  },
  // shutdown
  {
    title: 'shutdown an unknown order',
    options: withOptions({ shutdown: 'after-kafka' }),
    option: 'shutdown',
    message: /"shutdown": expected 'before-http' or 'after-http', got "after-kafka"/,
  },
  // waitForReady
  {
    title: 'waitForReady a string',
    options: withOptions({ waitForReady: 'yes' }),
    option: 'waitForReady',
    message: /"waitForReady": expected true or false, got "yes"/,
  },
  {
    title: 'waitForReady 1',
    options: withOptions({ waitForReady: 1 }),
    option: 'waitForReady',
    message: /"waitForReady": expected true or false, got 1/,
  },
  // consumer
  {
    title: 'consumer.sessionTimeoutMs 0',
    options: withOptions({ consumer: { sessionTimeoutMs: 0 } }),
    option: 'consumer.sessionTimeoutMs',
    message: new RegExp(`"consumer\\.sessionTimeoutMs": expected ${INT_RULE.source}, got 0`),
  },
  {
    title: 'consumer.heartbeatIntervalMs 0',
    options: withOptions({ consumer: { heartbeatIntervalMs: 0 } }),
    option: 'consumer.heartbeatIntervalMs',
    message: new RegExp(`"consumer\\.heartbeatIntervalMs": expected ${INT_RULE.source}, got 0`),
  },
  {
    title: 'consumer.heartbeatIntervalMs = sessionTimeoutMs',
    options: withOptions({
      consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 6000 },
    }),
    option: 'consumer.heartbeatIntervalMs',
    message:
      /"consumer\.heartbeatIntervalMs": expected a number below consumer\.sessionTimeoutMs \(6000\), got 6000/,
  },
  {
    title: 'consumer.heartbeatIntervalMs > default sessionTimeoutMs',
    options: withOptions({ consumer: { heartbeatIntervalMs: 20_000 } }),
    option: 'consumer.heartbeatIntervalMs',
    message:
      /"consumer\.heartbeatIntervalMs": expected a number below consumer\.sessionTimeoutMs \(10000\), got 20000/,
  },
  {
    title: 'consumer.maxWaitTimeMs = sessionTimeoutMs',
    options: withOptions({
      consumer: {
        sessionTimeoutMs: 6000,
        heartbeatIntervalMs: 500,
        maxWaitTimeMs: 6000,
      },
    }),
    option: 'consumer.maxWaitTimeMs',
    message:
      /"consumer\.maxWaitTimeMs": expected a number below consumer\.sessionTimeoutMs \(6000\), got 6000/,
  },
  {
    title: 'consumer.maxWaitTimeMs > sessionTimeoutMs',
    options: withOptions({
      consumer: { sessionTimeoutMs: 6000, maxWaitTimeMs: 7000 },
    }),
    option: 'consumer.maxWaitTimeMs',
    message:
      /"consumer\.maxWaitTimeMs": expected a number below consumer\.sessionTimeoutMs \(6000\), got 7000/,
  },
  {
    title: 'consumer.maxWaitTimeMs 0',
    options: withOptions({ consumer: { maxWaitTimeMs: 0 } }),
    option: 'consumer.maxWaitTimeMs',
    message: /"consumer\.maxWaitTimeMs": expected an integer from 1.*got 0/,
  },
  {
    title: 'consumer.metadataMaxAgeMs 0',
    options: withOptions({ consumer: { metadataMaxAgeMs: 0 } }),
    option: 'consumer.metadataMaxAgeMs',
    message: /"consumer\.metadataMaxAgeMs": expected an integer from 1.*got 0/,
  },
  // sections that must be objects (they used to be ignored silently)
  {
    title: 'consumer a number',
    options: withOptions({ consumer: 6000 }),
    option: 'consumer',
    message: /"consumer": expected an object, got 6000/,
  },
  {
    title: 'health a string',
    options: withOptions({ health: 'strict' }),
    option: 'health',
    message: /"health": expected an object, got "strict"/,
  },
  {
    title: 'topics an array',
    options: withOptions({ topics: [3] }),
    option: 'topics',
    message: /"topics": expected an object, got \[3\]/,
  },
  // topics
  {
    title: 'topics.numPartitions 0',
    options: withOptions({ topics: { numPartitions: 0 } }),
    option: 'topics.numPartitions',
    message: new RegExp(`"topics\\.numPartitions": expected ${INT_RULE.source}, got 0`),
  },
  {
    title: 'topics.replicationFactor 0',
    options: withOptions({ topics: { replicationFactor: 0 } }),
    option: 'topics.replicationFactor',
    message: /"topics\.replicationFactor": expected an integer from 1.*got 0/,
  },
  // failure policy
  {
    title: 'onHandlerError not a function',
    options: withOptions({ onHandlerError: 'log' }),
    option: 'onHandlerError',
    message: /"onHandlerError": expected a function \(error, context\), got "log"/,
  },
  {
    title: 'deadLetter a string',
    options: withOptions({ deadLetter: 'dlt' }),
    option: 'deadLetter',
    message: /"deadLetter": expected \{ topic: string \} or false, got "dlt"/,
  },
  {
    title: 'deadLetter without a topic',
    options: withOptions({ deadLetter: {} }),
    option: 'deadLetter.topic',
    message: NON_EMPTY_NAME_RULE,
  },
  {
    title: 'deadLetter.topic with a space',
    options: withOptions({ deadLetter: { topic: 'dead letters' } }),
    option: 'deadLetter.topic',
    message: NAME_RULE,
  },
  {
    title: 'maxPendingRetries 0',
    options: withOptions({ maxPendingRetries: 0 }),
    option: 'maxPendingRetries',
    message: /"maxPendingRetries": expected an integer from 1 to 1000000, got 0/,
  },
];

describe('resolveBroadcastOptions', () => {
  it.each(cases)(
    'rejects $title, naming "$option" and what it accepts',
    ({ options, option, message }) => {
      const error = resolveError(options);
      expect(error).toBeInstanceOf(BroadcastOptionsError);
      expect(error.name).toBe('BroadcastOptionsError');
      expect(error.option).toBe(option);
      expect(error.message).toMatch(/^Invalid BroadcastModule option "/);
      expect(error.message).toMatch(message);
      expect(() => resolveBroadcastOptions(options as BroadcastModuleOptions)).toThrow(message);
    },
  );

  it('fills in every default', () => {
    const resolved = resolveBroadcastOptions(VALID);
    expect(resolved).toEqual({
      kafka: VALID.kafka,
      topicPrefix: '',
      groupBaseName: undefined,
      lock: {
        dataSource: undefined,
        checkIntervalMs: D.DEFAULT_LOCK_CHECK_INTERVAL_MS,
      },
      maxGroups: D.DEFAULT_MAX_GROUPS,
      heartbeat: {
        intervalMs: D.DEFAULT_HEARTBEAT_INTERVAL_MS,
        jitter: D.DEFAULT_HEARTBEAT_JITTER,
        topic: D.DEFAULT_HEARTBEAT_TOPIC,
      },
      heartbeatTopic: D.DEFAULT_HEARTBEAT_TOPIC,
      handlerTimeoutMs: D.DEFAULT_HANDLER_TIMEOUT_MS,
      startupTimeoutMs: D.DEFAULT_STARTUP_TIMEOUT_MS,
      maxStalenessMs: 2 * D.DEFAULT_HEARTBEAT_INTERVAL_MS,
      maxUnreadyMs: undefined,
      outageGraceMs: D.DEFAULT_OUTAGE_GRACE_MS,
      shutdown: 'before-http',
      waitForReady: true,
      consumer: {
        sessionTimeoutMs: D.DEFAULT_SESSION_TIMEOUT_MS,
        heartbeatIntervalMs: D.DEFAULT_CONSUMER_HEARTBEAT_INTERVAL_MS,
        maxWaitTimeMs: D.DEFAULT_MAX_WAIT_TIME_MS,
        metadataMaxAgeMs: D.DEFAULT_METADATA_MAX_AGE_MS,
      },
      topics: {
        numPartitions: D.DEFAULT_TOPIC_PARTITIONS,
        replicationFactor: undefined,
      },
      instanceId: expect.stringMatching(/^.+-\d+-[0-9a-f]{6}$/),
      instanceIdChosen: false,
      roster: { intervalMs: 3_000 },
      receipts: { topic: 'broadcast.receipts.v1' },
      replay: new Map(),
      telemetry: { traces: true, metrics: true },
      onHandlerError: undefined,
      deadLetter: false,
      maxPendingRetries: 1_000,
    });
  });

  it('keeps every valid value it is given', () => {
    const brokers = () => ['b:1'];
    const resolved = resolveBroadcastOptions({
      kafka: { brokers, clientId: 'x' },
      topicPrefix: 'svc.prod_1-',
      groupBaseName: 'cache.Evict',
      lock: { dataSource: 'locks', checkIntervalMs: 250 },
      maxGroups: 1,
      heartbeat: { intervalMs: 500, jitter: 0, topic: 'hb.v2' },
      handlerTimeoutMs: 1,
      startupTimeoutMs: 2,
      health: { maxStalenessMs: 3, maxUnreadyMs: 4 },
      shutdown: 'after-http',
      waitForReady: false,
      consumer: {
        sessionTimeoutMs: 6000,
        heartbeatIntervalMs: 5999,
        maxWaitTimeMs: 5999,
        metadataMaxAgeMs: 1,
      },
      topics: { numPartitions: 3, replicationFactor: 2 },
      instanceId: 'me',
      deadLetter: { topic: 'svc.dlt' },
      maxPendingRetries: 7,
    });
    expect(resolved).toMatchObject({
      deadLetter: { topic: 'svc.dlt' },
      maxPendingRetries: 7,
      kafka: { brokers, clientId: 'x' },
      topicPrefix: 'svc.prod_1-',
      groupBaseName: 'cache.Evict',
      lock: { dataSource: 'locks', checkIntervalMs: 250 },
      maxGroups: 1,
      heartbeat: { intervalMs: 500, jitter: 0, topic: 'hb.v2' },
      heartbeatTopic: 'hb.v2',
      handlerTimeoutMs: 1,
      startupTimeoutMs: 2,
      maxStalenessMs: 3,
      maxUnreadyMs: 4,
      shutdown: 'after-http',
      waitForReady: false,
      consumer: {
        sessionTimeoutMs: 6000,
        heartbeatIntervalMs: 5999,
        maxWaitTimeMs: 5999,
        metadataMaxAgeMs: 1,
      },
      topics: { numPartitions: 3, replicationFactor: 2 },
      instanceId: 'me',
    });
  });

  it('accepts lock: false and heartbeat: false; the staleness default follows the heartbeat interval', () => {
    const off = resolveBroadcastOptions({
      ...VALID,
      lock: false,
      heartbeat: false,
    });
    expect(off.lock).toBe(false);
    expect(off.heartbeat).toBe(false);
    expect(off.heartbeatTopic).toBe(D.DEFAULT_HEARTBEAT_TOPIC);
    expect(off.maxStalenessMs).toBe(2 * D.DEFAULT_HEARTBEAT_INTERVAL_MS);
    expect(
      resolveBroadcastOptions({ ...VALID, heartbeat: { intervalMs: 1234 } }).maxStalenessMs,
    ).toBe(2468);
    expect(
      resolveBroadcastOptions({ ...VALID, heartbeat: { jitter: 0.999 } }).heartbeat,
    ).toMatchObject({ jitter: 0.999 });
  });

  it('derives the consumer heartbeat interval from a short session timeout, always at least 1 ms and below the session', () => {
    expect(
      resolveBroadcastOptions({
        ...VALID,
        consumer: { sessionTimeoutMs: 1500 },
      }).consumer.heartbeatIntervalMs,
    ).toBe(500);
    for (const sessionTimeoutMs of [2, 3, 5]) {
      const { consumer } = resolveBroadcastOptions({
        ...VALID,
        consumer: { sessionTimeoutMs, maxWaitTimeMs: 1 },
      });
      expect(consumer.heartbeatIntervalMs).toBeGreaterThanOrEqual(1);
      expect(consumer.heartbeatIntervalMs).toBeLessThan(sessionTimeoutMs);
    }
  });

  it('keeps every valid Kafka client setting, an oauthbearer provider and retries: 0', () => {
    const oauthBearerProvider = () => Promise.resolve({ value: 'token' });
    const kafka = {
      brokers: ['b:1'],
      sasl: { mechanism: 'oauthbearer' as const, oauthBearerProvider },
      connectionTimeoutMs: 1,
      requestTimeoutMs: 2,
      retry: { retries: 0, initialRetryTimeMs: 3, maxRetryTimeMs: 3 },
      logLevel: 'nothing' as const,
    };
    expect(resolveBroadcastOptions({ kafka }).kafka).toEqual(kafka);
    const scram = { mechanism: 'scram-sha-256' as const, username: 'u', password: 'p' };
    expect(resolveBroadcastOptions({ kafka: { brokers: ['b:1'], sasl: scram } }).kafka.sasl).toBe(
      scram,
    );
  });

  it('does not touch the options object it is given', () => {
    const options = { ...VALID, consumer: { sessionTimeoutMs: 6000 } };
    const copy = structuredClone(options);
    resolveBroadcastOptions(options);
    expect(options).toEqual(copy);
  });
});
