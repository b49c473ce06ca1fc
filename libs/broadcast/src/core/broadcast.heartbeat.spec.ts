import {
  BroadcastHeartbeat,
  heartbeatDelay,
  type HeartbeatPayload,
} from './broadcast.heartbeat.js';

const silent = { log() {}, warn() {}, error() {} };

describe('heartbeatDelay', () => {
  it('sends at once when nothing was sent or received', () => {
    expect(heartbeatDelay(10_000, undefined, undefined, 1_000)).toBe(0);
  });

  it('waits out the rest of the wanted gap after the latest activity', () => {
    expect(heartbeatDelay(10_000, 9_700, undefined, 1_000)).toBe(700);
    expect(heartbeatDelay(10_000, 5_000, 9_900, 1_000)).toBe(900);
  });

  it('treats a timestamp from the future (clock skew) as fresh', () => {
    expect(heartbeatDelay(10_000, 12_000, undefined, 1_000)).toBe(1_000);
  });
});

describe('BroadcastHeartbeat across a cluster', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  /** Instances share one "topic": a send is seen by all of them at once. */
  async function simulate(
    instances: number,
    intervalMs: number,
    durationMs: number,
    jitter = 0.25,
  ) {
    let newest: number | undefined;
    const sent: HeartbeatPayload[] = [];
    const send = async (_topic: string, payload: HeartbeatPayload) => {
      sent.push(payload);
      newest = Date.now();
    };
    const beats = Array.from(
      { length: instances },
      (_, i) =>
        new BroadcastHeartbeat(
          { intervalMs, jitter, topic: 'hb', instanceId: `i${i}` },
          { newestTimestamp: () => newest, groupId: () => `g-${i}` },
          send,
          silent,
        ),
    );
    beats.forEach((b) => b.start());
    await vi.advanceTimersByTimeAsync(durationMs);
    await Promise.all(beats.map((b) => b.stop()));
    return sent;
  }

  it('puts about one heartbeat per interval on the topic, whatever the number of instances', async () => {
    const one = await simulate(1, 1_000, 60_000);
    const ten = await simulate(10, 1_000, 60_000);
    // One instance: a heartbeat every 0.75–1 s.
    expect(one.length).toBeGreaterThanOrEqual(60);
    expect(one.length).toBeLessThanOrEqual(81);
    // Ten instances: the first to wake silences the rest, so still about one per interval,
    // far from the 10 × 60 that per-instance heartbeats would send.
    expect(ten.length).toBeLessThanOrEqual(90);
    expect(new Set(ten.map((p) => p.instanceId)).size).toBeGreaterThan(1);
  });

  it('sends nothing while other traffic keeps arriving', async () => {
    let newest: number | undefined = Date.now();
    const keepAlive = setInterval(() => (newest = Date.now()), 200);
    const sent: HeartbeatPayload[] = [];
    const beat = new BroadcastHeartbeat(
      { intervalMs: 1_000, jitter: 0.25, topic: 'hb', instanceId: 'x' },
      { newestTimestamp: () => newest, groupId: () => 'g' },
      async (_t, p) => void sent.push(p),
      silent,
    );
    beat.start();
    await vi.advanceTimersByTimeAsync(10_000);
    clearInterval(keepAlive);
    await beat.stop();
    expect(sent).toEqual([]);
  });

  it('carries the group id and the instance id', async () => {
    const sent = await simulate(1, 1_000, 10);
    expect(sent[0]).toMatchObject({ groupId: 'g-0', instanceId: 'i0' });
  });
});
