import type { Connection } from '@platformatic/kafka';

/** The broker's defaults: a 5 s heartbeat interval, a 45 s session. */
const INTERVAL_MS = 5_000;
const SESSION_MS = 45_000;

/** Every heartbeat sent: when, its epoch, and whether its coordinator was found again for it. */
const sent: { at: number; epoch: number; fresh: boolean }[] = [];
/** What the coordinator answers a heartbeat sent now: 'ok' or the error the client throws. */
let answer: (now: number) => Error | 'ok' = () => 'ok';
let lookedUpAgain = false;

/** A broker error as the client throws it (a ProtocolError inside the retries' MultipleErrors). */
function refusal(apiId: string): Error {
  return Object.assign(new Error('heartbeat failed 1 times.'), {
    errors: [Object.assign(new Error(`${apiId} from the broker`), { apiId, canRetry: true })],
  });
}

vi.mock('@platformatic/kafka', () => ({
  consumerGroupHeartbeatV1: {
    api: {
      async: (_connection: unknown, _groupId: string, memberId: string, epoch: number) => {
        sent.push({ at: Date.now(), epoch, fresh: lookedUpAgain });
        const result = epoch < 0 ? 'ok' : answer(Date.now());
        if (result !== 'ok') return Promise.reject(result);
        return Promise.resolve({
          memberId,
          memberEpoch: epoch < 0 ? epoch : 3,
          heartbeatIntervalMs: INTERVAL_MS,
          assignment: null,
        });
      },
    },
  },
}));

const { ConsumerProtocolHeartbeat } = await import('./platformatic-consumer-heartbeat.js');

function member(readSessionMs?: () => Promise<number | null>) {
  const lost: Error[] = [];
  const heartbeat = new ConsumerProtocolHeartbeat({
    groupId: 'g-1',
    topics: ['t'],
    rebalanceTimeoutMs: 10_000,
    sessionTimeoutMs: 10_000,
    instanceId: 'g-1',
    rackId: null,
    coordinator: (fresh) => {
      lookedUpAgain = fresh;
      return Promise.resolve({} as Connection);
    },
    assigned: () => undefined,
    lost: (error) => void lost.push(error),
    readSessionMs,
  });
  return { heartbeat, lost };
}

/** Steps the fake clock by 10 ms up to `ms`, noting when the member was not surely in its group. */
async function watch(heartbeat: { surelyInGroup(): boolean }, ms: number): Promise<number[]> {
  const notSure: number[] = [];
  for (let t = 0; t < ms; t += 10) {
    if (!heartbeat.surelyInGroup()) notSure.push(Date.now());
    await vi.advanceTimersByTimeAsync(10);
  }
  return notSure;
}

describe('ConsumerProtocolHeartbeat: a coordinator that moves (issue #37)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    sent.length = 0;
    answer = () => 'ok';
    lookedUpAgain = false;
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  // A rolling restart: the new coordinator answered NOT_COORDINATOR, then loaded the group for
  // seconds; records were held once the last answer was one interval (5 s) old.
  it('keeps the member surely in its group through a coordinator that loads for longer than an interval', async () => {
    const reads: number[] = [];
    const { heartbeat, lost } = member(() => {
      reads.push(Date.now());
      return Promise.resolve(SESSION_MS);
    });
    await heartbeat.join();
    await vi.advanceTimersByTimeAsync(3 * INTERVAL_MS);
    const from = Date.now();
    answer = (now) =>
      now < from + 1_000
        ? refusal('NOT_COORDINATOR')
        : now < from + 2 * INTERVAL_MS
          ? refusal('COORDINATOR_LOAD_IN_PROGRESS')
          : 'ok';
    expect(await watch(heartbeat, 3 * INTERVAL_MS)).toEqual([]);
    expect(sent.some((s) => s.at >= from + 2 * INTERVAL_MS && s.epoch === 3)).toBe(true);
    expect(lost).toEqual([]);
    // Read once, at the answer of the first heartbeat sent an interval after the join (after the
    // start, whose requests are pinned).
    expect(reads).toHaveLength(1);
    expect(reads[0]).toBeGreaterThanOrEqual(INTERVAL_MS);
    heartbeat.stop();
  });

  it('holds records from the session less a tenth on, never later, while the coordinator is away', async () => {
    const { heartbeat, lost } = member(() => Promise.resolve(SESSION_MS));
    await heartbeat.join();
    await vi.advanceTimersByTimeAsync(2 * INTERVAL_MS);
    const lastAnswered = sent.at(-1)!.at;
    answer = () => refusal('COORDINATOR_NOT_AVAILABLE');
    const notSure = await watch(heartbeat, SESSION_MS);
    expect(notSure[0]).toBe(lastAnswered + SESSION_MS - SESSION_MS / 10);
    expect(notSure.at(-1)).toBe(Date.now() - 10);
    expect(lost).toEqual([]);
    heartbeat.stop();
  });

  it('holds records from one interval on when the broker will not tell its session (an ACL)', async () => {
    const { heartbeat } = member(() => Promise.resolve(null));
    await heartbeat.join();
    await vi.advanceTimersByTimeAsync(2 * INTERVAL_MS);
    const lastAnswered = sent.at(-1)!.at;
    answer = () => refusal('COORDINATOR_LOAD_IN_PROGRESS');
    const notSure = await watch(heartbeat, 2 * INTERVAL_MS);
    expect(notSure[0]).toBe(lastAnswered + INTERVAL_MS);
    heartbeat.stop();
  });

  it('asks again for the session at the next answer when the read got no answer', async () => {
    let reads = 0;
    const { heartbeat } = member(() =>
      ++reads === 1 ? Promise.reject(new Error('Connection closed')) : Promise.resolve(SESSION_MS),
    );
    await heartbeat.join();
    await vi.advanceTimersByTimeAsync(4 * INTERVAL_MS);
    expect(reads).toBe(2);
    heartbeat.stop();
  });

  // Kafka's Java consumer: retry.backoff.ms 100 doubling up to retry.backoff.max.ms 1 s (±20 %).
  it('reaches a coordinator that finished loading within Java’s longest backoff, 1 s', async () => {
    // The longest jitter every time.
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    const { heartbeat } = member();
    await heartbeat.join();
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    const from = Date.now();
    const loaded = from + 8_000;
    answer = (now) => (now < loaded ? refusal('COORDINATOR_LOAD_IN_PROGRESS') : 'ok');
    await vi.advanceTimersByTimeAsync(12_000);
    const failed = sent.filter((s) => s.at >= from && s.at < loaded);
    const firstAfter = sent.find((s) => s.at >= loaded)!;
    expect(firstAfter.at - failed.at(-1)!.at).toBeLessThanOrEqual(1_000);
    // The coordinator answered: it is the group's, loading; no lookup again.
    expect(failed.every((s) => !s.fresh)).toBe(true);
    heartbeat.stop();
  });

  it('finds a coordinator that moved again and asks it at once', async () => {
    const { heartbeat } = member();
    await heartbeat.join();
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    const from = Date.now();
    answer = () =>
      sent.filter((s) => s.at >= from).length <= 1 ? refusal('NOT_COORDINATOR') : 'ok';
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    const [moved, again] = sent.filter((s) => s.at >= from);
    // At once (a timer of 0 ms is 1 ms): not after the shortest backoff, 80 ms (100 ms less 20 %).
    expect(again!.at - moved!.at).toBeLessThanOrEqual(1);
    expect(again!.fresh).toBe(true);
    heartbeat.stop();
  });
});
