import { toKafkaConfig } from './kafkajs.adapter.js';

describe('toKafkaConfig', () => {
  it('maps timeouts, retry and an oauthbearer provider to kafkajs names', async () => {
    const oauthBearerProvider = () => Promise.resolve({ value: 'jwt' });
    const config = toKafkaConfig({
      brokers: ['b:1'],
      sasl: { mechanism: 'oauthbearer', oauthBearerProvider },
      connectionTimeoutMs: 1,
      requestTimeoutMs: 2,
      retry: { retries: 0, initialRetryTimeMs: 3, maxRetryTimeMs: 4 },
    });
    expect(config).toMatchObject({
      connectionTimeout: 1,
      requestTimeout: 2,
      retry: { retries: 0, initialRetryTime: 3, maxRetryTime: 4 },
      sasl: { mechanism: 'oauthbearer' },
    });
    const sasl = config.sasl as { oauthBearerProvider: () => Promise<{ value: string }> };
    await expect(sasl.oauthBearerProvider()).resolves.toEqual({ value: 'jwt' });
  });

  it('keeps the deprecated kafka.retries, and sets no retry when none is given', () => {
    expect(toKafkaConfig({ brokers: ['b:1'], retries: 2 }).retry).toEqual({ retries: 2 });
    expect(toKafkaConfig({ brokers: ['b:1'] })).not.toHaveProperty('retry');
  });
});
