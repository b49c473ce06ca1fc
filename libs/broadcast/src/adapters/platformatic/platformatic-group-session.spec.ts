import type { Connection } from '@platformatic/kafka';

/** What the broker answers the next DescribeConfigs: its results, or the error the client throws. */
let next: (() => unknown) | undefined;
const asked: unknown[] = [];

vi.mock('@platformatic/kafka', () => ({
  describeConfigsV4: {
    api: {
      async: (_connection: unknown, resources: unknown) => {
        asked.push(resources);
        try {
          return Promise.resolve(next!());
        } catch (error) {
          return Promise.reject(error);
        }
      },
    },
  },
}));

const { readGroupSessionMs } = await import('./platformatic-group-session.js');

const answer = (value: string | null) => () => ({
  throttleTimeMs: 0,
  results: [
    {
      errorCode: 0,
      resourceType: 32,
      resourceName: 'g-1',
      configs: [{ name: 'consumer.session.timeout.ms', value }],
    },
  ],
});
/** A broker error as the client throws it (a ResponseError naming each resource's error). */
const refusal = (apiId: string, canRetry: boolean) => () => {
  throw Object.assign(new Error('Received response with error while executing API'), {
    errors: [Object.assign(new Error(apiId), { apiId, canRetry })],
  });
};
const connection = {} as Connection;

describe('readGroupSessionMs', () => {
  beforeEach(() => void (asked.length = 0));

  it("asks for the group resource's session and reads it", async () => {
    next = answer('45000');
    expect(await readGroupSessionMs(connection, 'g-1')).toBe(45_000);
    expect(asked).toEqual([
      [
        {
          resourceType: 32,
          resourceName: 'g-1',
          configurationKeys: ['consumer.session.timeout.ms'],
        },
      ],
    ]);
  });

  it('gives null when the broker refuses (an ACL, no group configs) or shows no value', async () => {
    next = refusal('GROUP_AUTHORIZATION_FAILED', false);
    expect(await readGroupSessionMs(connection, 'g-1')).toBeNull();
    next = refusal('INVALID_REQUEST', false);
    expect(await readGroupSessionMs(connection, 'g-1')).toBeNull();
    next = answer(null);
    expect(await readGroupSessionMs(connection, 'g-1')).toBeNull();
  });

  it('rejects when there was no answer, or a retriable one: it can be asked again', async () => {
    next = () => {
      throw Object.assign(new Error('Connection closed'), { code: 'ECONNRESET' });
    };
    await expect(readGroupSessionMs(connection, 'g-1')).rejects.toThrow('Connection closed');
    next = refusal('REQUEST_TIMED_OUT', true);
    await expect(readGroupSessionMs(connection, 'g-1')).rejects.toThrow();
  });
});
