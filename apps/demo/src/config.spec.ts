// The demo's environment parsing for KAFKA_CLIENT: the operator CLI's names, checked at startup.
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
