import { deferred } from '../../shared/async.utils.js';
import { BackgroundWork } from '../../shared/background-work.js';
import { RetryScheduler } from './retry-scheduler.js';

describe('RetryScheduler', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs each retry after its delay, in the background', () => {
    const scheduler = new RetryScheduler(10);
    const ran: string[] = [];
    scheduler.schedule(300, { run: () => void ran.push('b'), cancel: () => undefined });
    scheduler.schedule(100, { run: () => void ran.push('a'), cancel: () => undefined });
    expect(scheduler.pending).toBe(2);
    vi.advanceTimersByTime(100);
    expect(ran).toEqual(['a']);
    vi.advanceTimersByTime(200);
    expect(ran).toEqual(['a', 'b']);
    expect(scheduler.pending).toBe(0);
  });

  it('counts each retry as background work until its attempt settled or it was cancelled', async () => {
    const background = new BackgroundWork();
    let idled = 0;
    background.onIdle(() => idled++);
    const scheduler = new RetryScheduler(10, background);
    const attempt = deferred<void>();
    scheduler.schedule(10, { run: () => attempt.promise, cancel: () => undefined });
    scheduler.schedule(50, { run: () => undefined, cancel: () => undefined });
    vi.advanceTimersByTime(10);
    expect([background.idle, idled]).toEqual([false, 0]);
    attempt.resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect([background.idle, idled]).toEqual([false, 0]);
    scheduler.stop(); // the second one is cancelled: nothing is left
    expect([background.idle, idled]).toEqual([true, 1]);
  });

  it('takes at most maxPending, holding a slot until the attempt settled', async () => {
    const scheduler = new RetryScheduler(2);
    const attempt = deferred<void>();
    const noop = { run: () => undefined, cancel: () => undefined };
    expect(scheduler.schedule(10, { run: () => attempt.promise, cancel: () => undefined })).toBe(
      true,
    );
    expect(scheduler.schedule(10, noop)).toBe(true);
    expect(scheduler.schedule(10, noop)).toBe(false);
    vi.advanceTimersByTime(10);
    // The synchronous one is done; the async one still runs and keeps its slot.
    expect(scheduler.pending).toBe(1);
    expect(scheduler.schedule(10, noop)).toBe(true);
    expect(scheduler.schedule(10, noop)).toBe(false);
    attempt.resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(scheduler.pending).toBe(1);
    expect(scheduler.schedule(10, noop)).toBe(true);
  });

  it('a run that throws still frees its slot', () => {
    const scheduler = new RetryScheduler(1);
    scheduler.schedule(1, {
      run: () => {
        throw new Error('boom');
      },
      cancel: () => undefined,
    });
    vi.advanceTimersByTime(1);
    expect(scheduler.pending).toBe(0);
  });

  it('stop() cancels the waiting retries, each told once, and takes no new one', () => {
    const scheduler = new RetryScheduler(10);
    const ran: number[] = [];
    const cancelled: number[] = [];
    for (const n of [1, 2])
      scheduler.schedule(100, {
        run: () => void ran.push(n),
        cancel: () => void cancelled.push(n),
      });
    scheduler.stop();
    vi.advanceTimersByTime(1_000);
    expect(ran).toEqual([]);
    expect(cancelled).toEqual([1, 2]);
    expect(scheduler.schedule(1, { run: () => undefined, cancel: () => undefined })).toBe(false);
    expect(scheduler.pending).toBe(0);
  });
});
