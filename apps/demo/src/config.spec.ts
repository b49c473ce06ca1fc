// The demo's environment parsing: KAFKA_CLIENT (the operator CLI's names) and the broadcast
// settings an operator changes, checked at startup.
import { DemoConfigError, readEnvironment } from './config.js';

const base = { KAFKA_BROKERS: '127.0.0.1:9092' };

describe('demo readEnvironment: KAFKA_CLIENT', () => {
  it('passes kafkajs or platformatic on as kafkaClient; unset or empty is platformatic (@platformatic/kafka)', () => {
    expect(readEnvironment({ ...base, KAFKA_CLIENT: 'platformatic' }).kafkaClient).toBe(
      'platformatic',
    );
    expect(readEnvironment({ ...base, KAFKA_CLIENT: 'kafkajs' }).kafkaClient).toBe('kafkajs');
    expect(readEnvironment(base).kafkaClient).toBe('platformatic');
    expect(readEnvironment({ ...base, KAFKA_CLIENT: '' }).kafkaClient).toBe('platformatic');
  });

  it('refuses any other name, listing the accepted ones', () => {
    const read = () => readEnvironment({ ...base, KAFKA_CLIENT: 'rdkafka' });
    expect(read).toThrow(DemoConfigError);
    expect(read).toThrow("KAFKA_CLIENT must be one of kafkajs, platformatic, got 'rdkafka'");
  });
});

describe('demo readEnvironment: broadcast settings', () => {
  it('defaults: waitForReady false (probes answer while it waits), the dead-letter topic, no webhook, the library pool', () => {
    expect(readEnvironment(base)).toMatchObject({
      waitForReady: false,
      deadLetterTopic: 'dead-letters',
      failureWebhook: undefined,
      maxGroups: undefined,
    });
  });

  it('reads BROADCAST_WAIT_FOR_READY, BROADCAST_MAX_GROUPS, BROADCAST_DEAD_LETTER_TOPIC and DEMO_FAILURE_WEBHOOK', () => {
    expect(
      readEnvironment({
        ...base,
        BROADCAST_WAIT_FOR_READY: 'true',
        BROADCAST_MAX_GROUPS: '3',
        BROADCAST_DEAD_LETTER_TOPIC: '',
        DEMO_FAILURE_WEBHOOK: 'http://127.0.0.1:9/hook',
      }),
    ).toMatchObject({
      waitForReady: true,
      maxGroups: 3,
      deadLetterTopic: undefined,
      failureWebhook: 'http://127.0.0.1:9/hook',
    });
  });

  it.each([
    [
      'BROADCAST_WAIT_FOR_READY',
      'yes',
      "BROADCAST_WAIT_FOR_READY must be true or false, got 'yes'",
    ],
    [
      'BROADCAST_MAX_GROUPS',
      '0',
      "BROADCAST_MAX_GROUPS must be an integer from 1 to 10000, got '0'",
    ],
    [
      'DEMO_FAILURE_WEBHOOK',
      'ftp://x',
      "DEMO_FAILURE_WEBHOOK must be an http(s) URL, got 'ftp://x'",
    ],
  ])('refuses a malformed %s, naming it', (name, value, message) => {
    const read = () => readEnvironment({ ...base, [name]: value });
    expect(read).toThrow(DemoConfigError);
    expect(read).toThrow(message);
  });
});
