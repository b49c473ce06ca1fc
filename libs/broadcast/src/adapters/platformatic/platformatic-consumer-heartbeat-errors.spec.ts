import type { Connection } from '@platformatic/kafka';

const INTERVAL_MS = 1_000;
const SESSION_MS = 10_000;

interface Sent {
  memberId: string;
  epoch: number;
  instanceId: string | null;
}
/** Every heartbeat the member sends, and what the broker answers to the next ones, in turn. */
const sent: Sent[] = [];
const answers: (Error | 'ok')[] = [];

/** A broker error as the client throws it (a ProtocolError inside the retries' MultipleErrors). */
function refusal(apiId: string, canRetry: boolean): Error {
  return Object.assign(new Error('heartbeat failed 1 times.'), {
    errors: [Object.assign(new Error(`${apiId} from the broker`), { apiId, canRetry })],
  });
}
const refused = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

// The broker: answers each heartbeat at once, from `answers` (accepted once they run out).
vi.mock('@platformatic/kafka', () => ({
  consumerGroupHeartbeatV1: {
    api: {
      async: (
        _connection: unknown,
        _groupId: string,
        memberId: string,
        epoch: number,
        instanceId: string | null,
      ) => {
        sent.push({ memberId, epoch, instanceId });
        const answer = epoch < 0 ? 'ok' : (answers.shift() ?? 'ok');
        if (answer !== 'ok') return Promise.reject(answer);
        return Promise.resolve({
          memberId,
          memberEpoch: epoch < 0 ? epoch : 7,
          heartbeatIntervalMs: INTERVAL_MS,
          assignment: null,
        });
      },
    },
  },
}));

const { ConsumerProtocolHeartbeat } = await import('./platformatic-consumer-heartbeat.js');

function member() {
  const lost: Error[] = [];
  /** The epochs sent so far, when each loss was reported. */
  const sentWhenLost: number[][] = [];
  const fresh: boolean[] = [];
  const heartbeat = new ConsumerProtocolHeartbeat({
    groupId: 'g-1',
    topics: ['t'],
    rebalanceTimeoutMs: SESSION_MS,
    sessionTimeoutMs: SESSION_MS,
    instanceId: 'g-1',
    rackId: null,
    coordinator: (isFresh) => {
      fresh.push(isFresh);
      return Promise.resolve({} as Connection);
    },
    assigned: () => undefined,
    lost: (error) => {
      lost.push(error);
      sentWhenLost.push(sent.map((s) => s.epoch));
    },
  });
  return { heartbeat, lost, sentWhenLost, fresh };
}

describe('ConsumerProtocolHeartbeat: which errors end the membership', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    sent.length = 0;
    answers.length = 0;
  });
  afterEach(() => vi.useRealTimers());

  it('keeps its member id and epoch through a coordinator away for longer than the session', async () => {
    const { heartbeat, lost, fresh } = member();
    await heartbeat.join();
    // 40 failures in a row, well past SESSION_MS even at the shortest backoff.
    const away = [
      refusal('NOT_COORDINATOR', true),
      refusal('COORDINATOR_NOT_AVAILABLE', true),
      refusal('COORDINATOR_LOAD_IN_PROGRESS', true),
      refused(),
    ];
    for (let i = 0; i < 40; i++) answers.push(away[i % away.length]!);
    const back = heartbeat.nextAnswer();
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(heartbeat.surelyInGroup()).toBe(false);
    for (let i = 0; i < 1_000 && answers.length > 0; i++) await vi.advanceTimersByTimeAsync(100);
    expect(lost).toEqual([]);
    expect(Date.now()).toBeGreaterThan(2 * SESSION_MS);
    await vi.advanceTimersByTimeAsync(2_000);
    // Held records go on once a heartbeat with the same member is accepted.
    expect(await back).toBe(true);
    expect(heartbeat.surelyInGroup()).toBe(true);
    expect(lost).toEqual([]);
    expect(new Set(sent.map((s) => s.memberId))).toEqual(new Set([heartbeat.memberId]));
    expect(sent.slice(1).every((s) => s.epoch === 7)).toBe(true);
    // Each failure sends the next heartbeat to a coordinator found again, but
    // COORDINATOR_LOAD_IN_PROGRESS (the right coordinator, loading the group; as Java does): 30.
    expect(fresh.filter(Boolean).length).toBe(30);
    heartbeat.stop();
  });

  it('ends the membership on UNKNOWN_MEMBER_ID, without a leave (the broker holds no member)', async () => {
    const { heartbeat, lost } = member();
    await heartbeat.join();
    answers.push(refusal('UNKNOWN_MEMBER_ID', false));
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(lost.map((e) => e.message)).toEqual(['heartbeat failed 1 times.']);
    expect(sent.map((s) => s.epoch)).toEqual([0, 7]);
    expect(heartbeat.surelyInGroup()).toBe(false);
    expect(await heartbeat.nextAnswer()).toBe(false);
  });

  it('leaves at once when fenced (FENCED_MEMBER_EPOCH), before it reports the loss', async () => {
    const { heartbeat, sentWhenLost } = member();
    await heartbeat.join();
    answers.push(refusal('FENCED_MEMBER_EPOCH', false));
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(sentWhenLost).toEqual([[0, 7, -1]]);
    expect(sent[2]!.memberId).toBe(heartbeat.memberId);
    // A later stop does not leave twice.
    await heartbeat.leave();
    expect(sent.map((s) => s.epoch)).toEqual([0, 7, -1]);
  });

  it('ends the membership on a refusal the broker calls final (an ACL)', async () => {
    const { heartbeat, lost } = member();
    await heartbeat.join();
    answers.push(refusal('GROUP_AUTHORIZATION_FAILED', false));
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(lost).toHaveLength(1);
  });

  it('sends its instance id with every heartbeat but the leave, which frees it at once', async () => {
    const { heartbeat } = member();
    await heartbeat.join();
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    await heartbeat.leave();
    expect(sent.map((s) => [s.epoch, s.instanceId])).toEqual([
      [0, 'g-1'],
      [7, 'g-1'],
      [-1, null],
    ]);
  });

  it('fails the join at once when another member holds the instance id (UNRELEASED_INSTANCE_ID)', async () => {
    const { heartbeat, lost } = member();
    answers.push(refusal('UNRELEASED_INSTANCE_ID', false));
    await expect(heartbeat.join()).rejects.toThrow(
      /instance id g-1 of g-1 is held by another member \(UNRELEASED_INSTANCE_ID\)/,
    );
    // One round trip, no retry, and no leave: the broker never held the refused member.
    await heartbeat.leave();
    expect(sent.map((s) => [s.epoch, s.instanceId])).toEqual([[0, 'g-1']]);
    expect(lost).toEqual([]);
  });

  it('still leaves after a refusal when an earlier join of it went unanswered', async () => {
    const { heartbeat } = member();
    answers.push(refused(), refusal('UNRELEASED_INSTANCE_ID', false));
    const joined = expect(heartbeat.join()).rejects.toThrow(/UNRELEASED_INSTANCE_ID/);
    await vi.advanceTimersByTimeAsync(1_000);
    await joined;
    // The unanswered join may have made a member on the broker: the leave names only its id.
    await heartbeat.leave();
    expect(sent.map((s) => [s.epoch, s.instanceId])).toEqual([
      [0, 'g-1'],
      [0, 'g-1'],
      [-1, null],
    ]);
  });

  it('names the holder when the broker does', async () => {
    const { heartbeat } = member();
    const answer = refusal('UNRELEASED_INSTANCE_ID', false);
    Object.assign((answer as Error & { errors: object[] }).errors[0]!, {
      serverErrorMessage:
        'Static member m-2 with instance id g-1 cannot join the group because the instance id is owned by m-1 member.',
    });
    answers.push(answer);
    await expect(heartbeat.join()).rejects.toMatchObject({
      name: 'InstanceIdHeldError',
      holderMemberId: 'm-1',
      message: expect.stringMatching(/^instance id g-1 of g-1 is held by member m-1 /) as string,
    });
    heartbeat.stop();
  });

  it('ends the membership at once when its instance id was taken over (FENCED_INSTANCE_ID)', async () => {
    const { heartbeat, lost } = member();
    await heartbeat.join();
    answers.push(refusal('FENCED_INSTANCE_ID', false));
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(lost).toHaveLength(1);
    expect(heartbeat.surelyInGroup()).toBe(false);
  });
});
