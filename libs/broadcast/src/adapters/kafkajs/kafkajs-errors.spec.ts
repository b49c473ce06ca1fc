// The classifier over error objects shaped as kafkajs 2.2.4 throws them (name, type, code,
// cause, errors, groups); the real-broker cases are in test/secured-*.spec.ts.
import { describe, expect, it } from 'vitest';
import { BroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import { UntilReachable } from '../shared/until-reachable.js';
import { KafkajsErrors } from './kafkajs-errors.js';

const PASSWORD = 'unit-S3cret-4411';
const kafka = {
  brokers: ['b1:9093', 'b2:9093'],
  ssl: true,
  sasl: { mechanism: 'scram-sha-512' as const, username: 'svc', password: PASSWORD },
};
const classifier = new KafkajsErrors(kafka);
const silent = { log: () => undefined, warn: () => undefined, error: () => undefined };
const backoff = { baseMs: 500, capMs: 5_000 };
const named = (name: string, message: string, extra: object = {}) =>
  Object.assign(new Error(message), { name, ...extra });

describe('KafkajsErrors', () => {
  it('a refused SASL login names kafka.sasl and the user, never the password', () => {
    const error = classifier.fatal(
      named('KafkaJSSASLAuthenticationError', 'SASL SCRAM SHA512 authentication failed: bad'),
    );
    expect(error?.option).toBe('kafka.sasl');
    expect(error?.message).toContain('user "svc" (scram-sha-512)');
    expect(error?.message).not.toContain(PASSWORD);
  });

  it('a certificate failure inside kafkajs retries names kafka.ssl, only when TLS is on', () => {
    const failure = named('KafkaJSNumberOfRetriesExceeded', 'Connection error', {
      cause: named('KafkaJSConnectionError', 'Connection error: self-signed certificate', {
        code: 'SELF_SIGNED_CERT_IN_CHAIN',
      }),
    });
    expect(classifier.fatal(failure)?.option).toBe('kafka.ssl');
    expect(new KafkajsErrors({ brokers: ['b'] }).fatal(failure)).toBeUndefined();
  });

  it('topic and group authorization failures name the operation, resource and ACL', () => {
    const create = classifier.fatal(
      named('KafkaJSAggregateError', 'Topic creation errors', {
        errors: [
          { name: 'KafkaJSCreateTopicError', type: 'TOPIC_AUTHORIZATION_FAILED', topic: 't1' },
        ],
      }),
      { operation: 'create missing topics', acl: { topic: 'CREATE' }, topics: ['t1', 't2'] },
    );
    expect(create?.message).toMatch(/denied create missing topics on topic "t1".*CREATE ACL/);
    const remove = classifier.fatal(
      named('KafkaJSDeleteGroupsError', 'Error in DeleteGroups', {
        groups: [{ groupId: 'g-0', errorCode: 30, error: { type: 'GROUP_AUTHORIZATION_FAILED' } }],
      }),
      { operation: 'delete consumer group', acl: { group: 'DELETE' }, groupId: 'g-0' },
    );
    expect(remove?.message).toMatch(/denied delete consumer group on group "g-0".*DELETE ACL/);
  });

  it('anything else is not fatal', () => {
    expect(classifier.fatal(named('KafkaJSProtocolError', 'x', { type: 'NOT_COORDINATOR' }))).toBe(
      undefined,
    );
  });

  it('an unreachable broker is retried until startupTimeoutMs, then reported once', async () => {
    let attempts = 0;
    const reachable = new UntilReachable(classifier, {
      kafka,
      startupTimeoutMs: 300,
      logger: silent,
      backoff,
    });
    const error = await reachable
      .run(
        () => {
          attempts++;
          return Promise.reject(
            named('KafkaJSConnectionError', 'Connection error: connect ECONNREFUSED b1:9093'),
          );
        },
        { operation: 'describe topics', acl: {} },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BroadcastStartupError);
    expect((error as BroadcastStartupError).option).toBe('kafka.brokers');
    expect((error as Error).message).toMatch(
      /^Could not reach Kafka at b1:9093,b2:9093: connect ECONNREFUSED b1:9093 \(tried \d+ time/,
    );
    expect(attempts).toBeGreaterThanOrEqual(1);
  });

  it('a TLS failure kafkajs logs while it keeps retrying ends the wait at once', async () => {
    const tls = new KafkajsErrors(kafka);
    const reachable = new UntilReachable(tls, {
      kafka,
      startupTimeoutMs: 60_000,
      logger: silent,
      backoff,
    });
    const pending = reachable.run(() => new Promise<never>(() => undefined), {
      operation: 'describe topics',
      acl: {},
    });
    tls.noteConnectionError('Connection error: unable to verify the first certificate');
    const error = await pending.catch((e: unknown) => e);
    expect((error as BroadcastStartupError).option).toBe('kafka.ssl');
  });

  it('tells the start at once of a connection kafkajs logs that says no broker is there, only', () => {
    const errors = new KafkajsErrors({ brokers: ['b1:9093'] });
    const heard: string[] = [];
    const unwatch = errors.watchAttempt((note) => heard.push(note.message));
    errors.noteConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:1');
    errors.noteConnectionError('Connection timeout');
    errors.noteConnectionError('Connection error: read ECONNRESET');
    unwatch();
    errors.noteConnectionError('Connection error: getaddrinfo ENOTFOUND kafka');
    expect(heard).toEqual(['connect ECONNREFUSED 127.0.0.1:1']);
  });
});
