import type { HandlerErrorContext } from '../../interfaces/broadcast-failure-policy.interface.js';
import type { RawOutgoingRecord } from '../../interfaces/kafka-port.interface.js';
import { DeadLetterHeaders as H } from './dead-letter-record.js';
import { type ExhaustedCall, FailureOutlets } from './failure-outlets.js';

const CALL: ExhaustedCall = {
  handler: 'Cache.evict',
  message: {
    topic: 'evict',
    key: 'k',
    headers: { trace: 'abc' },
    timestamp: 1_700_000_000_000,
    partition: 2,
    offset: '41',
    payload: { id: 1 },
  },
  record: {
    key: Buffer.from('k'),
    value: Buffer.from([0x7b, 0x22, 0x69, 0x64, 0x22, 0x3a, 0x31, 0x7d]),
    timestamp: '1700000000000',
    offset: '41',
    headers: { trace: Buffer.from('abc') },
  },
  error: new Error('db down'),
  attempts: 3,
};

function outlets(
  hook: ((error: unknown, context: HandlerErrorContext) => unknown) | undefined,
  send: (topic: string, records: RawOutgoingRecord[]) => Promise<void>,
  deadLetterTopic: string | null = 'p.dlt',
) {
  const errors: string[] = [];
  const logger = {
    errors,
    log: () => undefined,
    warn: () => undefined,
    error: (message: string, stack?: string) =>
      void errors.push(stack ? `${message}\n${stack}` : message),
  };
  const o = new FailureOutlets(
    {
      instanceId: 'me',
      topicPrefix: 'p.',
      hook,
      deadLetterTopic: deadLetterTopic ?? undefined,
      timeoutMs: 50,
    },
    send as never,
    logger,
  );
  return { o, logger };
}

describe('FailureOutlets', () => {
  it('calls the hook once with the error and the context, and dead-letters the record as received', async () => {
    const hooked: [unknown, HandlerErrorContext][] = [];
    const sent: [string, RawOutgoingRecord[]][] = [];
    const { o } = outlets(
      (error, context) => void hooked.push([error, context]),
      async (topic, records) => void sent.push([topic, records]),
    );
    o.exhausted(CALL);
    await o.settled(1_000);
    expect(hooked).toEqual([
      [
        CALL.error,
        {
          topic: 'evict',
          handler: 'Cache.evict',
          message: CALL.message,
          attempts: 3,
          instanceId: 'me',
        },
      ],
    ]);
    expect(sent).toHaveLength(1);
    const [topic, [dead]] = sent[0]!;
    expect(topic).toBe('p.dlt');
    expect(dead!.key).toBe(CALL.record.key);
    expect(dead!.value).toBe(CALL.record.value);
    expect(dead!.headers).toEqual({
      trace: CALL.record.headers!.trace,
      [H.topic]: 'p.evict',
      [H.partition]: '2',
      [H.offset]: '41',
      [H.timestamp]: '1700000000000',
      [H.handler]: 'Cache.evict',
      [H.error]: 'db down',
      [H.attempts]: '3',
      [H.instance]: 'me',
    });
    expect([o.deadLettered, o.deadLetterFailures, o.hookFailures]).toEqual([1, 0, 0]);
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('hook bug');
      },
      /hook bug/,
    ],
    ['rejects', () => Promise.reject(new Error('hook rejected')), /hook rejected/],
    ['hangs', () => new Promise(() => {}), /onHandlerError timed out after 50 ms/],
  ])('a hook that %s is logged and counted; the dead letter still goes', async (_, hook, text) => {
    const sent: string[] = [];
    const { o, logger } = outlets(hook, async (topic) => void sent.push(topic));
    expect(() => o.exhausted(CALL)).not.toThrow();
    await o.settled(1_000);
    expect(o.hookFailures).toBe(1);
    expect(sent).toEqual(['p.dlt']);
    expect(logger.errors).toEqual([
      expect.stringMatching(/The onHandlerError hook failed for Cache\.evict on evict\[2\]@41/),
    ]);
    expect(logger.errors[0]).toMatch(text);
  });

  it('a dead letter the broker refuses is logged and counted', async () => {
    const { o, logger } = outlets(undefined, () =>
      Promise.reject(new Error('TOPIC_AUTHORIZATION_FAILED')),
    );
    o.exhausted(CALL);
    await o.settled(1_000);
    expect([o.deadLettered, o.deadLetterFailures]).toEqual([0, 1]);
    expect(logger.errors[0]).toMatch(
      /Could not dead-letter the record of Cache\.evict to p\.dlt on evict\[2\]@41: TOPIC_AUTHORIZATION_FAILED/,
    );
  });

  it('without a dead-letter topic nothing is sent', async () => {
    const sent: string[] = [];
    const { o } = outlets(undefined, async (topic) => void sent.push(topic), null);
    o.exhausted(CALL);
    await o.settled(1_000);
    expect(sent).toEqual([]);
  });
});
