import type { RetryDelayGetter } from '@platformatic/kafka';
import { toClientOptions } from './platformatic-client-options.js';

describe('toClientOptions', () => {
  it('hands the oauthbearer provider to the client as a token function asked on each login, with its extensions', async () => {
    let calls = 0;
    const options = toClientOptions(
      {
        brokers: ['b:1'],
        sasl: {
          mechanism: 'oauthbearer',
          oauthBearerProvider: () =>
            Promise.resolve({
              value: `jwt-${++calls}`,
              extensions: { logicalCluster: `lkc-${calls}` },
            }),
        },
      },
      ['b:1'],
    );
    expect(options.sasl?.mechanism).toBe('OAUTHBEARER');
    const token = options.sasl?.token as () => Promise<string>;
    await expect(token()).resolves.toBe('jwt-1');
    await expect(token()).resolves.toBe('jwt-2');
    const extensions = options.sasl?.oauthBearerExtensions as () => Record<string, string>;
    expect(extensions()).toEqual({ logicalCluster: 'lkc-2' });
  });

  it('maps timeouts and retry, the delay doubling from initialRetryTimeMs up to maxRetryTimeMs', () => {
    const options = toClientOptions(
      {
        brokers: ['b:1'],
        connectionTimeoutMs: 1,
        requestTimeoutMs: 2,
        retry: { retries: 0, initialRetryTimeMs: 100, maxRetryTimeMs: 300 },
      },
      ['b:1'],
    );
    expect(options).toMatchObject({ connectTimeout: 1, timeout: 2, retries: 0 });
    const delay = options.retryDelay as RetryDelayGetter;
    const error = new Error('x');
    expect([1, 2, 3, 4].map((attempt) => delay({}, 'op', attempt, 5, error))).toEqual([
      100, 200, 300, 300,
    ]);
  });

  it('keeps the client defaults when no retry is given', () => {
    const options = toClientOptions({ brokers: ['b:1'] }, ['b:1']);
    expect(options).not.toHaveProperty('retries');
    expect(options).not.toHaveProperty('retryDelay');
  });
});
