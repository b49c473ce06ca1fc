import type { Consumer, RecordsBatch } from '@platformatic/kafka';
import type { GroupConsumerSpec, IncomingRecord } from '../../interfaces/kafka-port.interface.js';
import { PlatformaticFetcher } from './platformatic-fetcher.js';

const TOPIC = 't';
const TOPIC_ID = 'id-t';

/** One batch of plain records at `offsets` (consecutive). */
function batch(first: number, count: number): RecordsBatch {
  return {
    firstOffset: BigInt(first),
    lastOffsetDelta: count - 1,
    attributes: 0,
    producerId: -1n,
    firstTimestamp: 0n,
    maxTimestamp: 0n,
    records: Array.from({ length: count }, (_, i) => ({
      timestampDelta: 0n,
      offsetDelta: i,
      key: null,
      value: Buffer.from(String(first + i)),
      headers: [],
    })),
  } as unknown as RecordsBatch;
}

type FetchAnswer = { errorCode?: number; batches?: RecordsBatch[]; aborted?: [] | null } | Error;

/**
 * A Consumer as far as the fetcher uses it: one topic with one partition led by node 1; each
 * Fetch takes the next scripted answer (or waits for one), and records the offset it asked for.
 */
function fakeConsumer(answers: FetchAnswer[], topic = { partitionsCount: 1 }) {
  const asked: bigint[] = [];
  let wake: (() => void) | undefined;
  const consumer = {
    metadata: async () => ({
      topics: new Map([
        [
          TOPIC,
          { id: TOPIC_ID, partitions: [{ leader: 1 }], partitionsCount: topic.partitionsCount },
        ],
      ]),
    }),
    listOffsets: async () => new Map([[TOPIC, [0n]]]),
    clearMetadata: () => undefined,
    fetch: async (request: { topics: { partitions: { fetchOffset: bigint }[] }[] }) => {
      asked.push(request.topics[0]!.partitions[0]!.fetchOffset);
      while (answers.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const answer = answers.shift()!;
      if (answer instanceof Error) throw answer;
      const response = {
        responses: [
          {
            topicId: TOPIC_ID,
            partitions: [
              {
                partitionIndex: 0,
                errorCode: answer.errorCode ?? 0,
                abortedTransactions: answer.aborted === undefined ? [] : answer.aborted,
                records: answer.batches,
              },
            ],
          },
        ],
      };
      // As the client does: a partition error fails the whole Fetch (a ResponseError carrying
      // the parsed answer, its ProtocolErrors among `errors`).
      if (answer.errorCode)
        throw Object.assign(new Error('Received response with error while executing API Fetch'), {
          errors: [{ apiId: 'OFFSET_OUT_OF_RANGE', canRetry: false }],
          response,
        });
      return response;
    },
  };
  const push = (answer: FetchAnswer) => {
    answers.push(answer);
    wake?.();
  };
  return { consumer: consumer as unknown as Consumer, asked, push };
}

function spec(received: string[], overrides: Partial<GroupConsumerSpec> = {}): GroupConsumerSpec {
  return {
    groupId: 'g',
    topics: [TOPIC],
    fromBeginning: true,
    sink: (_topic, _partition, record: IncomingRecord) => void received.push(record.offset),
    listener: { joined: () => undefined, positioned: () => undefined, crashed: () => undefined },
    ...overrides,
  };
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
};

describe('PlatformaticFetcher', () => {
  it('hands over an answer whose abortedTransactions is null (2.12 types it nullable)', async () => {
    const received: string[] = [];
    const crashed: unknown[] = [];
    const { consumer, push } = fakeConsumer([{ batches: [batch(0, 2)], aborted: null }]);
    const listener = {
      joined: () => undefined,
      positioned: () => undefined,
      crashed: (e: unknown) => void crashed.push(e),
    };
    const fetcher = new PlatformaticFetcher(consumer, spec(received, { listener }), 10);
    fetcher.assign(new Map([[TOPIC, [0]]]));
    fetcher.seek(TOPIC, 0, '0');
    const running = fetcher.run();
    await until(() => received.length === 2 || crashed.length > 0);
    fetcher.stop();
    push({ batches: [] });
    await running.catch((error: unknown) => crashed.push(error));
    expect({ received, crashed }).toEqual({ received: ['0', '1'], crashed: [] });
  });

  it('a failed Fetch is asked again from the same position: nothing is handed over twice', async () => {
    const received: string[] = [];
    const { consumer, asked, push } = fakeConsumer([
      { batches: [batch(5, 2)] },
      Object.assign(new Error('Connection closed'), { canRetry: true }),
      { batches: [batch(7, 1)] },
    ]);
    const fetcher = new PlatformaticFetcher(consumer, spec(received), 10);
    fetcher.assign(new Map([[TOPIC, [0]]]));
    fetcher.seek(TOPIC, 0, '5');
    const running = fetcher.run();
    await until(() => received.length === 3);
    fetcher.stop();
    push({ batches: [] });
    await running;
    expect({ received, asked: asked.slice(0, 3) }).toEqual({
      received: ['5', '6', '7'],
      asked: [5n, 7n, 7n],
    });
  });

  it('drops a Fetch that began before the latest join, and reads from the new seek', async () => {
    const received: string[] = [];
    const { consumer, asked, push } = fakeConsumer([]);
    const fetcher = new PlatformaticFetcher(consumer, spec(received), 10);
    fetcher.assign(new Map([[TOPIC, [0]]]));
    fetcher.seek(TOPIC, 0, '0');
    const running = fetcher.run();
    await until(() => asked.length === 1);
    // A rejoin while that Fetch is in flight: the engine seeks 3.
    fetcher.assign(new Map([[TOPIC, [0]]]));
    fetcher.seek(TOPIC, 0, '3');
    push({ batches: [batch(0, 3)] });
    await until(() => asked.length === 2);
    push({ batches: [batch(3, 1)] });
    await until(() => received.length === 1);
    fetcher.stop();
    push({ batches: [] });
    await running;
    expect({ received, asked: asked.slice(0, 2) }).toEqual({ received: ['3'], asked: [0n, 3n] });
  });

  it('a seek while a record is in the sink stops the hand-over there; the next Fetch reads from the seek', async () => {
    const received: string[] = [];
    const progress: string[] = [];
    const { consumer, asked, push } = fakeConsumer([{ batches: [batch(0, 4)] }]);
    let fetcher: PlatformaticFetcher | undefined;
    const sink = (_t: string, _p: number, record: IncomingRecord) => {
      received.push(record.offset);
      if (record.offset === '1') fetcher!.seek(TOPIC, 0, '10');
    };
    fetcher = new PlatformaticFetcher(
      consumer,
      spec(received, { sink, progress: (_t, _p, next) => void progress.push(next) }),
      10,
    );
    fetcher.assign(new Map([[TOPIC, [0]]]));
    fetcher.seek(TOPIC, 0, '0');
    const running = fetcher.run();
    await until(() => asked.length === 2);
    push({ batches: [batch(10, 1)] });
    await until(() => received.length === 3);
    fetcher.stop();
    push({ batches: [] });
    await running;
    expect({ received, asked: asked.slice(0, 2), progress }).toEqual({
      received: ['0', '1', '10'],
      asked: [0n, 10n],
      progress: ['11'],
    });
  });

  it('an answer that begins before the position (a whole batch) hands over from the position on', async () => {
    const received: string[] = [];
    const { consumer, push } = fakeConsumer([{ batches: [batch(0, 5)] }]);
    const fetcher = new PlatformaticFetcher(consumer, spec(received), 10);
    fetcher.assign(new Map([[TOPIC, [0]]]));
    fetcher.seek(TOPIC, 0, '3');
    const running = fetcher.run();
    await until(() => received.length === 2);
    fetcher.stop();
    push({ batches: [] });
    await running;
    expect(received).toEqual(['3', '4']);
  });

  it('OFFSET_OUT_OF_RANGE: the engine decides where the partition continues, nothing else resets it', async () => {
    const received: string[] = [];
    const { consumer, asked, push } = fakeConsumer([{ errorCode: 1 }, { batches: [batch(10, 1)] }]);
    const outOfRange = vi.fn(async () => '10');
    const fetcher = new PlatformaticFetcher(consumer, spec(received, { outOfRange }), 10);
    fetcher.assign(new Map([[TOPIC, [0]]]));
    fetcher.seek(TOPIC, 0, '6');
    const running = fetcher.run();
    await until(() => received.length === 1);
    fetcher.stop();
    push({ batches: [] });
    await running;
    expect({ received, asked: asked.slice(0, 2), decided: outOfRange.mock.calls }).toEqual({
      received: ['10'],
      asked: [6n, 10n],
      decided: [[TOPIC, 0]],
    });
  });

  it('reports partitions added to a topic once per generation (the client would never rebalance for them)', async () => {
    const topic = { partitionsCount: 1 };
    const { consumer, asked, push } = fakeConsumer([], topic);
    const added = vi.fn();
    const fetcher = new PlatformaticFetcher(consumer, spec([]), 10, added);
    fetcher.assign(new Map([[TOPIC, [0]]]));
    fetcher.seek(TOPIC, 0, '0');
    const running = fetcher.run();
    await until(() => asked.length === 1);
    push({ batches: [] });
    await until(() => asked.length === 2);
    expect(added).not.toHaveBeenCalled();
    topic.partitionsCount = 3;
    push({ batches: [] });
    await until(() => asked.length === 3);
    push({ batches: [] });
    await until(() => asked.length === 4);
    expect(added).toHaveBeenCalledTimes(1);
    fetcher.stop();
    push({ batches: [] });
    await running;
  });
});

describe('PlatformaticFetcher: failed rounds', () => {
  afterEach(() => vi.useRealTimers());

  it('rides out an unreachable broker however many rounds it takes, then reads on', async () => {
    vi.useFakeTimers();
    const received: string[] = [];
    const refused = () =>
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    // More failed rounds than MAX_FAILED_ROUNDS (5): an outage is not a reason to crash.
    const { consumer, push } = fakeConsumer([
      ...Array.from({ length: 8 }, refused),
      { batches: [batch(0, 2)] },
    ]);
    const fetcher = new PlatformaticFetcher(consumer, spec(received), 10);
    fetcher.assign(new Map([[TOPIC, [0]]]));
    fetcher.seek(TOPIC, 0, '0');
    let failure: unknown;
    const running = fetcher.run().catch((error: unknown) => (failure = error));
    await vi.advanceTimersByTimeAsync(30_000);
    expect(failure).toBeUndefined();
    expect(received).toEqual(['0', '1']);
    fetcher.stop();
    push({ batches: [] });
    await running;
  });

  it('fetches again at once when the leader moved, with no backoff', async () => {
    vi.useFakeTimers();
    const received: string[] = [];
    const moved = Object.assign(new Error('fetch failed 4 times.'), {
      errors: [{ apiId: 'NOT_LEADER_OR_FOLLOWER', canRetry: true }],
    });
    const { consumer, asked, push } = fakeConsumer([moved, { batches: [batch(0, 1)] }]);
    const fetcher = new PlatformaticFetcher(consumer, spec(received), 10);
    fetcher.assign(new Map([[TOPIC, [0]]]));
    fetcher.seek(TOPIC, 0, '0');
    const running = fetcher.run();
    // No timer advanced: only promise turns.
    await vi.advanceTimersByTimeAsync(0);
    expect(asked.slice(0, 2)).toEqual([0n, 0n]);
    expect(received).toEqual(['0']);
    fetcher.stop();
    push({ batches: [] });
    await running;
  });

  it('still crashes after rounds a broker refused, and a stop ends its backoff at once', async () => {
    const refusal = () =>
      Object.assign(new Error('fetch failed'), {
        errors: [{ apiId: 'UNKNOWN_TOPIC_OR_PARTITION', canRetry: true }],
      });
    vi.useFakeTimers();
    const { consumer } = fakeConsumer(Array.from({ length: 5 }, refusal));
    const fetcher = new PlatformaticFetcher(consumer, spec([]), 10);
    fetcher.assign(new Map([[TOPIC, [0]]]));
    fetcher.seek(TOPIC, 0, '0');
    let failure: unknown;
    const running = fetcher.run().catch((error: unknown) => (failure = error));
    await vi.advanceTimersByTimeAsync(30_000);
    expect((failure as Error | undefined)?.message).toBe('fetch failed');
    await running;
    const stopped = fakeConsumer([refusal()]);
    const another = new PlatformaticFetcher(stopped.consumer, spec([]), 10);
    another.assign(new Map([[TOPIC, [0]]]));
    another.seek(TOPIC, 0, '0');
    let ended = false;
    const loop = another.run().then(() => (ended = true));
    await vi.advanceTimersByTimeAsync(0);
    another.stop();
    await vi.advanceTimersByTimeAsync(0);
    expect(ended).toBe(true);
    await loop;
  });
});

describe('PlatformaticFetcher: leaders fetched apart', () => {
  /**
   * Two topics, `t` led by node 1 and `idle` by node 2. Node 1 answers `t` from the batches
   * queued for it (an empty long poll of 250 ms when none is); node 2's fetch answers only when
   * `release` is called (a long poll that outlasts node 1's answers).
   */
  function twoLeaders() {
    const queued: RecordsBatch[][] = [];
    const releases: (() => void)[] = [];
    const calls: number[] = [];
    const answer = (topicId: string, records: RecordsBatch[]) => ({
      responses: [
        {
          topicId,
          partitions: [{ partitionIndex: 0, errorCode: 0, abortedTransactions: [], records }],
        },
      ],
    });
    const consumer = {
      metadata: async () => ({
        topics: new Map([
          [
            TOPIC,
            { id: TOPIC_ID, partitions: [{ leader: 1, leaderEpoch: 0 }], partitionsCount: 1 },
          ],
          [
            'idle',
            { id: 'id-idle', partitions: [{ leader: 2, leaderEpoch: 0 }], partitionsCount: 1 },
          ],
        ]),
      }),
      listOffsets: async () => new Map(),
      clearMetadata: () => undefined,
      fetch: async (request: { node: number }) => {
        calls.push(request.node);
        if (request.node === 2) {
          await new Promise<void>((resolve) => releases.push(resolve));
          return answer('id-idle', []);
        }
        const next = queued.shift();
        if (!next) await new Promise((r) => setTimeout(r, 250));
        return answer(TOPIC_ID, next ?? []);
      },
    };
    const release = () => releases.splice(0).forEach((resolve) => resolve());
    return { consumer: consumer as unknown as Consumer, queued, release, calls };
  }

  it("hands one leader's records over while another leader's fetch is still in flight", async () => {
    // As Kafka's Java consumer: a fetch per node, records returned as soon as any node answered.
    // Waiting for every leader held each record for the slowest leader's long poll (the
    // rolling-restart spec: records answered in 14-138 ms handed over 0.25-0.74 s later).
    const received: string[] = [];
    const { consumer, queued, release, calls } = twoLeaders();
    queued.push([batch(0, 2)], [batch(2, 1)]);
    const fetcher = new PlatformaticFetcher(
      consumer,
      spec(received, { topics: [TOPIC, 'idle'] }),
      250,
    );
    fetcher.assign(
      new Map([
        [TOPIC, [0]],
        ['idle', [0]],
      ]),
    );
    fetcher.seek(TOPIC, 0, '0');
    fetcher.seek('idle', 0, '0');
    const running = fetcher.run();
    await until(() => received.length === 3);
    expect(received).toEqual(['0', '1', '2']);
    // Node 2 was asked once: its fetch is still the one in flight.
    expect(calls.filter((n) => n === 2)).toHaveLength(1);
    fetcher.stop();
    release();
    await running;
  });
});
