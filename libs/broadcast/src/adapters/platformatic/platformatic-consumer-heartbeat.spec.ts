import type { Connection } from '@platformatic/kafka';

const INTERVAL_MS = 5_000;
const ROUND_TRIP_MS = 40;
/** Every heartbeat the member sends, by when (fake clock). */
const sentAt: number[] = [];

// The broker: answers each heartbeat ROUND_TRIP_MS later with the interval it asks for.
vi.mock('@platformatic/kafka', () => ({
  consumerGroupHeartbeatV1: {
    api: {
      async: (_connection: unknown, _groupId: string, memberId: string, epoch: number) => {
        sentAt.push(Date.now());
        return new Promise((resolve) =>
          setTimeout(
            () =>
              resolve({
                memberId,
                memberEpoch: epoch < 0 ? epoch : 1,
                heartbeatIntervalMs: INTERVAL_MS,
                assignment: null,
              }),
            ROUND_TRIP_MS,
          ),
        );
      },
    },
  },
}));

const { ConsumerProtocolHeartbeat } = await import('./platformatic-consumer-heartbeat.js');

describe('ConsumerProtocolHeartbeat', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    sentAt.length = 0;
  });
  afterEach(() => vi.useRealTimers());

  it('sends each heartbeat early enough that the member is surely in its group all along', async () => {
    const heartbeat = new ConsumerProtocolHeartbeat({
      groupId: 'g-1',
      topics: ['t'],
      rebalanceTimeoutMs: 10_000,
      sessionTimeoutMs: 10_000,
      instanceId: null,
      rackId: null,
      coordinator: () => Promise.resolve({} as Connection),
      assigned: () => undefined,
      lost: (error) => {
        throw error;
      },
    });
    const joined = heartbeat.join();
    await vi.advanceTimersByTimeAsync(ROUND_TRIP_MS);
    await joined;
    // Records are held whenever surelyInGroup() is false: look every 10 ms for five intervals.
    const notSure: number[] = [];
    for (let t = 0; t < 5 * INTERVAL_MS; t += 10) {
      if (!heartbeat.surelyInGroup()) notSure.push(Date.now());
      await vi.advanceTimersByTimeAsync(10);
    }
    heartbeat.stop();
    expect(notSure).toEqual([]);
    // Not more often than needed: one heartbeat per interval less a fifth, give or take a tick.
    expect(sentAt.length).toBeGreaterThanOrEqual(6);
    expect(sentAt.length).toBeLessThanOrEqual(8);
  });
});
