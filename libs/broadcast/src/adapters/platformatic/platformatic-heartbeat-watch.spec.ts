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
});
