import { BroadcastOptionsError } from '../../errors/broadcast-options.error.js';
import type { BroadcastHandlerOptions } from '../../interfaces/broadcast-failure-policy.interface.js';
import { resolveHandlerPolicy, retryDelay } from './handler-policy.js';

const LIMITS = { handlerTimeoutMs: 5_000, sessionTimeoutMs: 10_000 };

function rejection(options: unknown): BroadcastOptionsError {
  try {
    resolveHandlerPolicy('Cache.evict', options as BroadcastHandlerOptions, LIMITS);
  } catch (error) {
    if (error instanceof BroadcastOptionsError) return error;
    throw error;
  }
  throw new Error('the handler options were accepted');
}

describe('resolveHandlerPolicy', () => {
  it('defaults to one attempt within the module timeout', () => {
    expect(resolveHandlerPolicy('h', {}, LIMITS)).toEqual({
      attempts: 1,
      backoffMs: 200,
      maxBackoffMs: 30_000,
      timeoutMs: 5_000,
    });
  });

  it('keeps the retry and timeout it is given', () => {
    const policy = resolveHandlerPolicy(
      'h',
      { retry: { attempts: 4, backoffMs: 50, maxBackoffMs: 120 }, timeoutMs: 9_999 },
      LIMITS,
    );
    expect(policy).toEqual({ attempts: 4, backoffMs: 50, maxBackoffMs: 120, timeoutMs: 9_999 });
  });

  it.each([
    [{ retry: 3 }, 'retry (handler Cache.evict)', /expected \{ attempts/],
    [{ retry: { attempts: 0 } }, 'retry.attempts (handler Cache.evict)', /from 1 to 100, got 0/],
    [{ retry: { attempts: 1.5 } }, 'retry.attempts (handler Cache.evict)', /got 1\.5/],
    [{ retry: { attempts: 2, backoffMs: -1 } }, 'retry.backoffMs (handler Cache.evict)', /got -1/],
    [
      { retry: { attempts: 2, backoffMs: 500, maxBackoffMs: 100 } },
      'retry.maxBackoffMs (handler Cache.evict)',
      /≥ retry\.backoffMs \(500\), got 100/,
    ],
    [{ timeoutMs: 0 }, 'timeoutMs (handler Cache.evict)', /got 0/],
    [
      { timeoutMs: 10_000 },
      'timeoutMs (handler Cache.evict)',
      /below consumer\.sessionTimeoutMs \(10000\), got 10000/,
    ],
  ])('rejects %j naming "%s"', (options, option, message) => {
    const error = rejection(options);
    expect(error.option).toBe(option);
    expect(error.message).toMatch(message);
  });
});

describe('retryDelay', () => {
  it('doubles from backoffMs before each further retry, capped at maxBackoffMs', () => {
    const policy = { attempts: 8, backoffMs: 100, maxBackoffMs: 1_000, timeoutMs: 1 };
    expect([1, 2, 3, 4, 5, 6, 7].map((failed) => retryDelay(policy, failed))).toEqual([
      100, 200, 400, 800, 1_000, 1_000, 1_000,
    ]);
  });
});
