import { channel } from 'node:diagnostics_channel';
import { HeartbeatWatch } from './platformatic-heartbeat-watch.js';

const INTERVAL_MS = 500;

describe('HeartbeatWatch', () => {
  let stopped: Error[];
  let watch: HeartbeatWatch;
  beforeEach(() => {
    vi.useFakeTimers();
    stopped = [];
    watch = new HeartbeatWatch('g-1', INTERVAL_MS, (error) => stopped.push(error));
  });
  afterEach(() => {
    watch.cancel();
    vi.useRealTimers();
  });

  it('reports the heartbeats stopped when none began within three intervals of a failure', () => {
    watch.began();
    vi.advanceTimersByTime(10);
    watch.failed(new Error('connect ECONNREFUSED'));
    vi.advanceTimersByTime(3 * INTERVAL_MS - 1);
    expect(stopped).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(stopped.map((e) => e.message)).toEqual([
      'Heartbeats of g-1 stopped after a failure: connect ECONNREFUSED',
    ]);
  });

  it('leaves a client that heartbeats again alone', () => {
    watch.failed(new Error('connect ECONNREFUSED'));
    vi.advanceTimersByTime(INTERVAL_MS);
    watch.began();
    vi.advanceTimersByTime(10 * INTERVAL_MS);
    expect(stopped).toEqual([]);
  });

  it('watches one failure at a time, and nothing once cancelled', () => {
    watch.failed(new Error('first'));
    vi.advanceTimersByTime(INTERVAL_MS);
    watch.failed(new Error('second'));
    vi.advanceTimersByTime(2 * INTERVAL_MS);
    expect(stopped.map((e) => e.message)).toEqual([
      'Heartbeats of g-1 stopped after a failure: first',
    ]);
    watch.failed(new Error('third'));
    watch.cancel();
    vi.advanceTimersByTime(10 * INTERVAL_MS);
    expect(stopped).toHaveLength(1);
  });

  it("counts an attempt that fails before any coordinator answered (the client's tracing channel)", () => {
    const client = {};
    const unfollow = watch.follow(client);
    const attempt = channel('tracing:plt:kafka:consumer:heartbeat:start');
    // An outage: each attempt begins an interval after the last failure and fails in its
    // FindCoordinator retries (3 s), so no consumer:heartbeat:start ever comes.
    for (let t = 0; t < 20; t++) {
      watch.failed(new Error('connect ECONNREFUSED'));
      vi.advanceTimersByTime(INTERVAL_MS);
      attempt.publish({ client, operation: 'heartbeat' });
      attempt.publish({ client: {}, operation: 'heartbeat' });
      vi.advanceTimersByTime(6 * INTERVAL_MS);
    }
    expect(stopped).toEqual([]);
    // Once unfollowed (the consumer closed), its attempts count no more.
    unfollow();
    watch.failed(new Error('connect ECONNREFUSED'));
    attempt.publish({ client, operation: 'heartbeat' });
    vi.advanceTimersByTime(3 * INTERVAL_MS);
    expect(stopped).toHaveLength(1);
  });
});
