import { afterEach, describe, expect, it, vi } from 'vitest';
import { RecordingBudget } from './recording-budget.js';

describe('RecordingBudget', () => {
  afterEach(() => vi.restoreAllMocks());

  function clock(start = 1_000) {
    let now = start;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    return { advance: (ms: number) => (now += ms), now: () => now };
  }

  it('records every value below the budget, with the call time', () => {
    const time = clock();
    const budget = new RecordingBudget(100);
    const taken = [];
    for (let i = 0; i < 500; i++) {
      time.advance(20); // 50 per second: half the budget
      taken.push(budget.take());
    }
    expect(taken.every((t) => t !== undefined)).toBe(true);
    expect(taken.at(-1)).toBe(time.now());
  });

  it('above the budget records about the budget per second, spread over the second', () => {
    const time = clock();
    const budget = new RecordingBudget(100);
    const takenAt: number[] = [];
    for (let i = 0; i < 100_000; i++) {
      time.advance(0.1); // 10,000 per second for 10 s
      if (budget.take() !== undefined) takenAt.push(time.now());
    }
    // The first second's burst (100) plus 100 per second after it.
    expect(takenAt.length).toBeGreaterThanOrEqual(1_000);
    expect(takenAt.length).toBeLessThanOrEqual(1_101);
    const lastSecond = takenAt.filter((t) => t > time.now() - 1_000);
    const halves = [0, 500].map(
      (from) =>
        lastSecond.filter((t) => t > time.now() - 1_000 + from && t <= time.now() - 500 + from)
          .length,
    );
    expect(halves[0]).toBeGreaterThan(35);
    expect(halves[1]).toBeGreaterThan(35);
  });

  it('after a quiet second allows a burst of one budget again', () => {
    const time = clock();
    const budget = new RecordingBudget(10);
    for (let i = 0; i < 50; i++) budget.take();
    time.advance(5_000);
    let burst = 0;
    for (let i = 0; i < 50; i++) if (budget.take() !== undefined) burst++;
    expect(burst).toBe(10);
  });
});
