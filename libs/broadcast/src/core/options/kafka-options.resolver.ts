import { BroadcastMessages } from '../../errors/broadcast.messages.js';
import { BroadcastOptionsError } from '../../errors/broadcast-options.error.js';
import type { BroadcastKafkaOptions } from '../../interfaces/broadcast-kafka-options.interface.js';
import { isObject } from './option-checks.js';

// The `kafka` section: checked here, at startup, so a typo is named before any connection is tried.

const MAX_INT = 2_147_483_647;
const KAFKA_CLIENTS: readonly unknown[] = ['kafkajs', 'platformatic', 'confluent'];
const GROUP_PROTOCOLS: readonly unknown[] = ['classic', 'consumer', 'auto'];
const PASSWORD_MECHANISMS: readonly unknown[] = ['plain', 'scram-sha-256', 'scram-sha-512'];
const LOG_LEVELS: readonly unknown[] = ['nothing', 'error', 'warn', 'info', 'debug'];

/** Checks the `kafka` option; returns it unchanged (each adapter maps it to its client). */
export function resolveKafka(kafka: BroadcastKafkaOptions | undefined): BroadcastKafkaOptions {
  if (!isObject(kafka)) throw new BroadcastOptionsError('kafka', 'an object with brokers', kafka);
  const brokers = kafka.brokers;
  const valid =
    typeof brokers === 'function' ||
    (Array.isArray(brokers) &&
      brokers.length > 0 &&
      brokers.every((b) => typeof b === 'string' && b.length > 0));
  if (!valid) {
    throw new BroadcastOptionsError(
      'kafka.brokers',
      'a non-empty array of "host:port" strings or a function',
      brokers,
    );
  }
  if (kafka.client !== undefined && !KAFKA_CLIENTS.includes(kafka.client))
    throw new BroadcastOptionsError(
      'kafka.client',
      "'kafkajs', 'platformatic' or 'confluent'",
      kafka.client,
    );
  if (kafka.groupProtocol !== undefined && !GROUP_PROTOCOLS.includes(kafka.groupProtocol))
    throw new BroadcastOptionsError(
      'kafka.groupProtocol',
      "'classic', 'consumer' or 'auto'",
      kafka.groupProtocol,
    );
  if (kafka.client === 'kafkajs' && kafka.groupProtocol === 'consumer')
    throw new BroadcastOptionsError(
      'kafka.groupProtocol',
      BroadcastMessages.kafkajsGroupProtocols,
      'consumer',
    );
  checkSasl(kafka.sasl);
  optionalInt('kafka.connectionTimeoutMs', kafka.connectionTimeoutMs, 1);
  optionalInt('kafka.requestTimeoutMs', kafka.requestTimeoutMs, 1);
  checkRetry(kafka);
  if (kafka.logLevel !== undefined && !LOG_LEVELS.includes(kafka.logLevel)) {
    throw new BroadcastOptionsError(
      'kafka.logLevel',
      "'nothing', 'error', 'warn', 'info' or 'debug'",
      kafka.logLevel,
    );
  }
  return kafka;
}

function checkSasl(sasl: unknown): void {
  if (sasl === undefined) return;
  if (!isObject(sasl)) {
    throw new BroadcastOptionsError(
      'kafka.sasl',
      "{ mechanism, username, password } or { mechanism: 'oauthbearer', oauthBearerProvider }",
      sasl,
    );
  }
  if (sasl.mechanism === 'oauthbearer') {
    if (typeof sasl.oauthBearerProvider !== 'function') {
      throw new BroadcastOptionsError(
        'kafka.sasl.oauthBearerProvider',
        'a function returning a Promise of { value: token }',
        sasl.oauthBearerProvider,
      );
    }
    return;
  }
  if (!PASSWORD_MECHANISMS.includes(sasl.mechanism)) {
    throw new BroadcastOptionsError(
      'kafka.sasl.mechanism',
      "'plain', 'scram-sha-256', 'scram-sha-512' or 'oauthbearer'",
      sasl.mechanism,
    );
  }
  for (const field of ['username', 'password'] as const) {
    const value: unknown = sasl[field];
    // A password of the wrong type is still a secret: never quoted back.
    const shown = field === 'password' && value !== undefined ? '***' : value;
    if (typeof value !== 'string')
      throw new BroadcastOptionsError(`kafka.sasl.${field}`, 'a string', shown);
  }
}

function checkRetry(kafka: BroadcastKafkaOptions): void {
  const retry: unknown = kafka.retry;
  optionalInt('kafka.retries', kafka.retries, 0);
  if (retry === undefined) return;
  if (!isObject(retry)) {
    throw new BroadcastOptionsError(
      'kafka.retry',
      '{ retries?, initialRetryTimeMs?, maxRetryTimeMs? }',
      retry,
    );
  }
  optionalInt('kafka.retry.retries', retry.retries, 0);
  // Two spellings of one setting would leave the reader guessing which one wins.
  if (kafka.retries !== undefined && retry.retries !== undefined) {
    throw new BroadcastOptionsError(
      'kafka.retries',
      'no value with kafka.retry.retries (use kafka.retry.retries)',
      kafka.retries,
    );
  }
  optionalInt('kafka.retry.initialRetryTimeMs', retry.initialRetryTimeMs, 1);
  const initial = retry.initialRetryTimeMs;
  if (typeof initial === 'number' && retry.maxRetryTimeMs !== undefined) {
    optionalInt(
      'kafka.retry.maxRetryTimeMs',
      retry.maxRetryTimeMs,
      initial,
      '(initialRetryTimeMs)',
    );
  } else {
    optionalInt('kafka.retry.maxRetryTimeMs', retry.maxRetryTimeMs, 1);
  }
}

function optionalInt(option: string, value: unknown, min: number, minNote = ''): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > MAX_INT) {
    const from = minNote ? `${min} ${minNote}` : String(min);
    throw new BroadcastOptionsError(option, `an integer from ${from} to ${MAX_INT}`, value);
  }
}
