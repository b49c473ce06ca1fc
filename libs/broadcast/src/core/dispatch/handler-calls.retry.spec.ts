// The failure policy in HandlerCalls over fakes: the first attempt bounds what the caller waits
// for; retries run in the background after their backoff, so later messages are not held up.
import { incomingRecord as record } from '../../testing/in-memory-manual-control.js';
import type { BroadcastMessage } from '../../interfaces/broadcast-message.interface.js';
import type { RegisteredHandler } from './broadcast-handler.registry.js';
import type { ExhaustedCall, FailureOutlets } from './failure-outlets.js';
import { HandlerCalls } from './handler-calls.js';
import type { HandlerPolicy } from './handler-policy.js';

const silent = { log: () => undefined, warn: () => undefined, error: () => undefined };

function message(n: number): { message: BroadcastMessage; raw: ReturnType<typeof record> } {
  const raw = record(n, { n });
  const m = { topic: 't', key: null, headers: {}, timestamp: 0, partition: 0, offset: String(n) };
  return { message: { ...m, payload: { n } }, raw };
}

function policy(attempts: number, backoffMs = 100, timeoutMs = 1_000): HandlerPolicy {
  return { attempts, backoffMs, maxBackoffMs: 10_000, timeoutMs };
}

function harness(maxPendingRetries = 100) {
  const exhausted: ExhaustedCall[] = [];
  const outlets = {
    exhausted: (call: ExhaustedCall) => void exhausted.push(call),
  } as FailureOutlets;
  const calls = new HandlerCalls(1_000, silent, maxPendingRetries, { outlets });
  const handler = (name: string, p: HandlerPolicy, handle: (n: number) => unknown) =>
    ({
      topic: 't',
      name,
      policy: p,
      handle: (payload: { n: number }) => handle(payload.n),
    }) as RegisteredHandler;
  const invoke = (
    handlers: RegisteredHandler[],
    n: number,
    settled?: (f: readonly string[]) => void,
  ) => {
    const { message: m, raw } = message(n);
    return calls.invoke(handlers, m, raw, settled);
  };
  return { calls, exhausted, handler, invoke };
}

describe('HandlerCalls failure policy', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('retries a failing handler after 100 then 200 ms, while later messages are handled at once', async () => {
    const { calls, exhausted, handler, invoke } = harness();
    const log: string[] = [];
    let failuresLeft = 2;
    const flaky = handler('flaky', policy(3), (n) => {
      log.push(`call ${n}`);
      if (n === 1 && failuresLeft-- > 0) throw new Error(`fail ${n}`);
    });
    const settled: (readonly string[])[] = [];
    expect(invoke([flaky], 1, (f) => void settled.push(f))).toBeUndefined();
    expect(invoke([flaky], 2)).toBeUndefined();
    // The second message was handled before the first one's retry.
    expect(log).toEqual(['call 1', 'call 2']);
    expect(settled).toEqual([]);
    vi.advanceTimersByTime(99);
    expect(log).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(log).toEqual(['call 1', 'call 2', 'call 1']);
    vi.advanceTimersByTime(199);
    expect(log).toHaveLength(3);
    vi.advanceTimersByTime(1);
    expect(log).toEqual(['call 1', 'call 2', 'call 1', 'call 1']);
    // The receipt's outcome is the final one: handled, after the retries.
    expect(settled).toEqual([[]]);
    expect({ failed: calls.failed, retries: calls.retries, exhausted: calls.exhausted }).toEqual({
      failed: 2,
      retries: 2,
      exhausted: 0,
    });
    expect(exhausted).toEqual([]);
    expect(calls.pendingRetries).toBe(0);
  });

  it('after the last attempt: final once, with the attempts, to the outlets and the receipt', async () => {
    const { calls, exhausted, handler, invoke } = harness();
    let n = 0;
    const broken = handler('broken', policy(2), () => Promise.reject(new Error(`down ${++n}`)));
    const fine: number[] = [];
    const other = handler('other', policy(1), (k) => void fine.push(k));
    const settled: (readonly string[])[] = [];
    await invoke([broken, other], 7, (f) => void settled.push(f));
    expect(fine).toEqual([7]);
    expect(settled).toEqual([]);
    await vi.advanceTimersByTimeAsync(100);
    expect(settled).toEqual([['broken: down 2 (after 2 attempts)']]);
    expect(exhausted).toHaveLength(1);
    expect(exhausted[0]).toMatchObject({ handler: 'broken', attempts: 2 });
    expect((exhausted[0]!.error as Error).message).toBe('down 2');
    expect(exhausted[0]!.message.offset).toBe('7');
    expect(exhausted[0]!.record.value!.toString()).toBe('{"n":7}');
    expect({ failed: calls.failed, retries: calls.retries, exhausted: calls.exhausted }).toEqual({
      failed: 2,
      retries: 1,
      exhausted: 1,
    });
  });

  it('waits at most the handler timeout for a first attempt, and times out a retry the same way', async () => {
    const { calls, exhausted, handler, invoke } = harness();
    let attempts = 0;
    const hangs = handler('hangs', policy(2, 10, 50), () => {
      attempts++;
      return new Promise(() => {});
    });
    const first = invoke([hangs], 1);
    let returned = false;
    void Promise.resolve(first).then(() => (returned = true));
    await vi.advanceTimersByTimeAsync(49);
    expect(returned).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(returned).toBe(true);
    expect(attempts).toBe(1);
    await vi.advanceTimersByTimeAsync(10);
    expect(attempts).toBe(2);
    expect(calls.pendingRetries).toBe(1);
    await vi.advanceTimersByTimeAsync(50);
    expect(calls.pendingRetries).toBe(0);
    expect(exhausted.map((e) => [(e.error as Error).message, e.attempts])).toEqual([
      ['timed out after 50 ms', 2],
    ]);
  });

  it('a failure that finds maxPendingRetries taken is final at once, counted as shed', () => {
    const { calls, exhausted, handler, invoke } = harness(1);
    const broken = handler('broken', policy(5), () => {
      throw new Error('down');
    });
    invoke([broken], 1);
    invoke([broken], 2);
    expect(calls.retries).toBe(1);
    expect(calls.retriesShed).toBe(1);
    expect(exhausted.map((e) => [e.message.offset, e.attempts])).toEqual([['2', 1]]);
  });

  it('stop cancels waiting retries: each ends as a final failure, once', () => {
    const { calls, exhausted, handler, invoke } = harness();
    const broken = handler('broken', policy(3), () => {
      throw new Error('down');
    });
    const settled: (readonly string[])[] = [];
    invoke([broken], 1, (f) => void settled.push(f));
    calls.stop();
    vi.advanceTimersByTime(10_000);
    expect(exhausted).toHaveLength(1);
    expect((exhausted[0]!.error as Error).message).toBe('the engine stopped before attempt 2');
    expect(settled).toEqual([['broken: the engine stopped before attempt 2']]);
  });

  it('without a policy a handler gets one attempt, as before', () => {
    const exhausted: ExhaustedCall[] = [];
    const outlets = { exhausted: (c: ExhaustedCall) => void exhausted.push(c) } as FailureOutlets;
    const calls = new HandlerCalls(1_000, silent, undefined, { outlets });
    const { message: m, raw } = message(1);
    const plain = {
      topic: 't',
      name: 'plain',
      handle: () => {
        throw new Error('x');
      },
    };
    calls.invoke([plain], m, raw);
    expect({ failed: calls.failed, retries: calls.retries, exhausted: calls.exhausted }).toEqual({
      failed: 1,
      retries: 0,
      exhausted: 1,
    });
  });
});
