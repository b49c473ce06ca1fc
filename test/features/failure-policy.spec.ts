/**
 * The failure policy on the real broker (#21 part 4): a handler with `retry` is called again
 * with the same message in the background while later messages go on; once its last attempt
 * failed, `onHandlerError` gets it once, the dead-letter topic gets the original record with
 * headers naming where it came from and why, the receipt reports it, and the status counts
 * it. The other handlers of the message are not affected. Also through @OnBroadcast.
 */
import { Injectable } from '@nestjs/common';
import type { Consumer, KafkaMessage } from 'kafkajs';
import {
  BroadcastModule,
  BroadcastPublisher,
  BroadcastReader,
  DeadLetterHeaders,
  OnBroadcast,
  type BroadcastMessage,
  type HandlerErrorContext,
} from 'nestjs-kafka-broadcast';
import { useEngineHarness, type EngineHarness } from '../support/engine/engine.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';
import { newKafka, waitFor } from '../support/broker/kafka.js';
import { postgresRoot, useNestHarness } from '../support/nest/nest.js';

const TOPIC = 'work';
const DLT = 'work.dead';

interface Work {
  n: number;
}

/** Every record of the harness's dead-letter topic, read from the start by a raw consumer. */
async function readDeadLetters(h: EngineHarness): Promise<{ messages: KafkaMessage[] }> {
  const consumer: Consumer = newKafka(`${h.name}-dlt`).consumer({
    groupId: `${h.prefix}dlt-reader`,
    maxWaitTimeInMs: 100,
  });
  const messages: KafkaMessage[] = [];
  // Before the engines stop: the harness deletes the prefix's groups, which must be empty.
  h.onCleanup(() => consumer.disconnect());
  await consumer.connect();
  await consumer.subscribe({ topic: h.topic(DLT), fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void messages.push(message) });
  return { messages };
}

describe.each(kafkaClients())('failure policy, %s client', (client) => {
  it('a handler failing twice then succeeding is called 3 times; a later message is handled before its retry', async () => {
    const h = useEngineHarness('failpolicy-retry', {}, client);
    const calls: string[] = [];
    let failuresLeft = 2;
    const e = await h.start({
      lock: 'none',
      topics: [TOPIC],
      register: (engine) =>
        engine.on<Work>(
          TOPIC,
          (work) => {
            calls.push(`n${work.n}`);
            if (work.n === 1 && failuresLeft-- > 0) throw new Error(`evict ${work.n} failed`);
          },
          // A long backoff: n2 arrives in the same fetch as n1, and is handled meanwhile.
          { name: 'Cache.evict', retry: { attempts: 3, backoffMs: 1_500 } },
        ),
    });
    await h.sendJson(TOPIC, [{ n: 1 }, { n: 2 }]);
    await waitFor(() => calls.length === 4, { timeoutMs: 30_000, message: `calls ${calls}` });
    expect(calls).toEqual(['n1', 'n2', 'n1', 'n1']);
    // The collector (registered after Cache.evict) got each message once, not once per attempt.
    expect(e.payloads(TOPIC)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(e.status()).toMatchObject({
      received: 2,
      failed: 2,
      retries: 2,
      exhausted: 0,
      retriesPending: 0,
      deadLettered: 0,
    });
    expect(e.logger.matching(/Cache\.evict failed on work\[0\]@0 \(attempt 1 of 3\)/)).toHaveLength(
      1,
    );
  });

  it('after the last attempt: the hook is called once, the dead-letter topic gets the original record, the receipt says failed, the status counts it', async () => {
    const h = useEngineHarness('failpolicy-dlt', {}, client);
    const hooked: { error: unknown; context: HandlerErrorContext }[] = [];
    const brokenCalls: number[] = [];
    const e = await h.start({
      lock: 'none',
      name: 'inst-a',
      topics: [TOPIC],
      options: {
        handlerTimeoutMs: 1_000,
        deadLetter: { topic: DLT },
        onHandlerError: (error, context) => void hooked.push({ error, context }),
      },
      register: (engine) =>
        engine.on<Work>(
          TOPIC,
          async (work) => {
            brokenCalls.push(work.n);
            throw new Error(`database down for ${work.n}`);
          },
          { name: 'Cache.evict', retry: { attempts: 2, backoffMs: 100 } },
        ),
    });
    // The dead-letter topic exists once the engine is ready, and the engine does not read it.
    expect(await (await h.admin()).listTopics()).toContain(h.topic(DLT));
    const dlt = await readDeadLetters(h);

    const receipt = await e.engine.publisher.publish(
      TOPIC,
      { n: 7 },
      {
        key: 'product-7',
        headers: { origin: 'failure-policy-test' },
        receipts: { timeoutMs: 20_000 },
      },
    );
    // The ack waited for the retry: the receipt says failed only once both attempts failed.
    expect(receipt.failed).toEqual([
      { instanceId: 'inst-a', errors: ['Cache.evict: database down for 7 (after 2 attempts)'] },
    ]);
    expect(brokenCalls).toEqual([7, 7]);
    // The other handler of the message (the collector) handled it, once.
    expect(e.payloads(TOPIC)).toEqual([{ n: 7 }]);

    // deadLettered counts once the broker acknowledged the send, which the reader may beat.
    const done = () => hooked.length === 1 && dlt.messages.length === 1;
    await waitFor(() => done() && e.status().deadLettered === 1, {
      timeoutMs: 20_000,
      message: `hook calls ${hooked.length}, dead letters ${dlt.messages.length}`,
    });
    const [{ error, context }] = hooked;
    expect((error as Error).message).toBe('database down for 7');
    expect(context).toMatchObject({
      topic: TOPIC,
      handler: 'Cache.evict',
      attempts: 2,
      instanceId: 'inst-a',
      message: { topic: TOPIC, key: 'product-7', partition: 0, offset: '0', payload: { n: 7 } },
    });

    const [dead] = dlt.messages;
    expect(dead!.key!.toString()).toBe('product-7');
    expect(dead!.value!.toString()).toBe(JSON.stringify({ n: 7 }));
    const headers = Object.fromEntries(
      Object.entries(dead!.headers ?? {}).map(([k, v]) => [k, String(v)]),
    );
    expect(headers).toMatchObject({
      origin: 'failure-policy-test',
      [DeadLetterHeaders.topic]: h.topic(TOPIC),
      [DeadLetterHeaders.partition]: '0',
      [DeadLetterHeaders.offset]: '0',
      [DeadLetterHeaders.handler]: 'Cache.evict',
      [DeadLetterHeaders.error]: 'database down for 7',
      [DeadLetterHeaders.attempts]: '2',
      [DeadLetterHeaders.instance]: 'inst-a',
    });
    // The publish's own receipt headers travel with the original record.
    expect(headers['x-broadcast-receipt']).toBe(receipt.id);

    expect(e.status()).toMatchObject({
      received: 1,
      failed: 2,
      retries: 1,
      exhausted: 1,
      deadLettered: 1,
      deadLetterFailures: 0,
      hookFailures: 0,
    });
    // Still reading: a later message is handled as usual.
    await h.sendJson(TOPIC, [{ n: 8 }]);
    await waitFor(() => e.payloads(TOPIC).length === 2, { message: 'n8 handled' });
  });
});

@Injectable()
class FlakyEvictions {
  readonly calls: number[] = [];
  private failuresLeft = 2;

  @OnBroadcast<Work>(TOPIC, { retry: { attempts: 3, backoffMs: 100 }, timeoutMs: 2_000 })
  evict(work: Work) {
    this.calls.push(work.n);
    if (this.failuresLeft-- > 0) throw new Error('still down');
  }

  @OnBroadcast<Work>(TOPIC, { name: 'AlwaysDown', retry: { attempts: 2, backoffMs: 100 } })
  alwaysDown(_work: Work, _message: BroadcastMessage<Work>) {
    throw new Error('always down');
  }
}

describe.each(kafkaClients())('failure policy through @OnBroadcast, %s client', (client) => {
  it('retries a decorated handler and hands its final failure to the module hook', async () => {
    const h = useNestHarness('failpolicy-nest', undefined, client);
    const hooked: HandlerErrorContext[] = [];
    const app = await h.start({
      imports: [
        postgresRoot(),
        BroadcastModule.forRoot(
          h.options({ onHandlerError: (_error, context) => void hooked.push(context) }),
        ),
      ],
      providers: [FlakyEvictions],
    });
    const evictions = app.get(FlakyEvictions);
    await app.get(BroadcastPublisher).publish(TOPIC, { n: 1 });
    await waitFor(() => evictions.calls.length === 3 && hooked.length === 1, {
      timeoutMs: 20_000,
      message: `calls ${evictions.calls}, hook ${hooked.length}`,
    });
    expect(evictions.calls).toEqual([1, 1, 1]);
    expect(hooked.map((c) => [c.handler, c.attempts])).toEqual([['AlwaysDown', 2]]);
    expect(app.get(BroadcastReader).status()).toMatchObject({ retries: 3, exhausted: 1 });
  });
});

// Refused while the module initialises, before any Kafka client is made: one run is enough.
describe('failure policy options through @OnBroadcast', () => {
  it('fails app.init() on an invalid retry option, naming the option and the handler', async () => {
    @Injectable()
    class BadRetry {
      @OnBroadcast(TOPIC, { retry: { attempts: 0 } })
      onWork() {}
    }
    const h = useNestHarness('failpolicy-bad');
    const app = await h.create({
      imports: [postgresRoot(), BroadcastModule.forRoot(h.options())],
      providers: [BadRetry],
    });
    await expect(app.init()).rejects.toThrow(
      'Invalid BroadcastModule option "retry.attempts (handler BadRetry.onWork)": expected an integer from 1 to 100, got 0.',
    );
  });
});
