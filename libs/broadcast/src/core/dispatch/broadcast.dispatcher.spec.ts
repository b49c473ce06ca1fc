import { incomingRecord as record } from '../../testing/in-memory-manual-control.js';
import { NO_INSTRUMENTATION } from '../../interfaces/no-instrumentation.js';
import { BroadcastHandlerRegistry } from './broadcast-handler.registry.js';
import { BroadcastDispatcher } from './broadcast.dispatcher.js';
import { ReadPositions } from '../positions/read-positions.js';

const HOUR_MS = 3_600_000;
const silent = { log: () => undefined, warn: () => undefined, error: () => undefined };

function dispatcher() {
  const positions = new ReadPositions();
  const registry = new BroadcastHandlerRegistry();
  registry.add('t', () => undefined);
  const settings = { topicPrefix: 'p.', heartbeatTopic: 'hb', handlerTimeoutMs: 100 };
  return { d: new BroadcastDispatcher(registry, settings, silent, positions), positions };
}

describe('BroadcastDispatcher freshness under clock skew', () => {
  it('clamps a record stamped in the future to the receive time', () => {
    const { d } = dispatcher();
    const before = Date.now();
    void d.sink('p.t', 0, record(0, {}, before + HOUR_MS));
    expect(d.counters().newestTimestamp!).toBeGreaterThanOrEqual(before);
    expect(d.counters().newestTimestamp!).toBeLessThanOrEqual(Date.now());
  });

  it('a record stamped in the past does not move freshness back, nor forward', () => {
    const { d } = dispatcher();
    const now = Date.now();
    void d.sink('p.t', 0, record(0, {}, now - 10));
    void d.sink('p.hb', 0, record(0, {}, now - HOUR_MS));
    expect(d.counters().newestTimestamp).toBe(now - 10);
    expect(d.counters().heartbeats).toBe(1);
  });

  it('advances the read positions of every record handed over', () => {
    const { d, positions } = dispatcher();
    void d.sink('p.t', 2, record(41, {}));
    expect(positions.positionOf('p.t', 2)).toBe('42');
  });
});

describe('BroadcastDispatcher: the one guard of positions', () => {
  function counting() {
    const positions = new ReadPositions();
    positions.setStart(new Map([['p.t', new Map([[0, '5']])]]));
    const calls: number[] = [];
    const registry = new BroadcastHandlerRegistry();
    registry.add('t', (payload) => void calls.push((payload as { n: number }).n));
    const settings = { topicPrefix: 'p.', heartbeatTopic: 'hb', handlerTimeoutMs: 100 };
    return { d: new BroadcastDispatcher(registry, settings, silent, positions), calls, positions };
  }

  it('refuses and counts a record below the engine position (a redelivery, a second fetcher)', async () => {
    const { d, calls, positions } = counting();
    for (const offset of [5, 6, 6, 5, 7, 3]) await d.sink('p.t', 0, record(offset, { n: offset }));
    expect(calls).toEqual([5, 6, 7]);
    expect(d.counters().refused).toBe(3);
    expect(positions.positionOf('p.t', 0)).toBe('8');
  });

  it('refuses a record older than the start snapshot (no bulk replay)', async () => {
    const { d, calls } = counting();
    await d.sink('p.t', 0, record(0, { n: 0 }));
    await d.sink('p.t', 0, record(4, { n: 4 }));
    expect(calls).toEqual([]);
    expect(d.counters().refused).toBe(2);
  });

  it('never lets an exception escape to the client: a throwing instrumentation and logger', async () => {
    const throwing = {
      log: () => undefined,
      warn: () => {
        throw new Error('logger broke');
      },
      error: () => {
        throw new Error('logger broke');
      },
    };
    const registry = new BroadcastHandlerRegistry();
    const calls: string[] = [];
    registry.add('t', () => {
      calls.push('sync');
      throw new Error('handler failed');
    });
    registry.add('t', async () => {
      calls.push('async');
      throw new Error('async handler failed');
    });
    const positions = new ReadPositions();
    const settings = { topicPrefix: 'p.', heartbeatTopic: 'hb', handlerTimeoutMs: 100 };
    let instrumentation = NO_INSTRUMENTATION;
    const d = new BroadcastDispatcher(registry, settings, throwing, positions, {
      instrumentation: () => instrumentation,
    });
    // The sink returns normally (or a promise that resolves) whatever happens inside.
    await expect(Promise.resolve().then(() => d.sink('p.t', 0, record(0, {})))).resolves.toBe(
      undefined,
    );
    await expect(
      Promise.resolve().then(() => d.sink('p.t', 0, { ...record(1, {}), value: Buffer.from('{') })),
    ).resolves.toBe(undefined);
    instrumentation = {
      handler: () => {
        throw new Error('instrumentation broke');
      },
      publish: () => {
        throw new Error('instrumentation broke');
      },
    } as unknown as typeof NO_INSTRUMENTATION;
    await expect(Promise.resolve().then(() => d.sink('p.t', 0, record(2, {})))).resolves.toBe(
      undefined,
    );
    expect(positions.positionOf('p.t', 0)).toBe('3');
    expect(d.counters().internalErrors).toBeGreaterThan(0);
    // The same record again is refused, never handled twice.
    await d.sink('p.t', 0, record(2, {}));
    expect(calls.filter((c) => c === 'sync').length).toBeLessThanOrEqual(2);
    expect(d.counters().refused).toBe(1);
  });
});

describe('BroadcastDispatcher: retries keep the positions', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('a retry calls the handler again from memory: the position advanced once, a redelivery is still refused', async () => {
    const positions = new ReadPositions();
    const registry = new BroadcastHandlerRegistry();
    const calls: number[] = [];
    let failuresLeft = 1;
    const policy = { attempts: 2, backoffMs: 50, maxBackoffMs: 50, timeoutMs: 100 };
    const flaky = (payload: unknown) => {
      calls.push((payload as { n: number }).n);
      if (failuresLeft-- > 0) throw new Error('down');
    };
    registry.add('t', flaky, 'flaky', policy);
    const settings = { topicPrefix: 'p.', heartbeatTopic: 'hb', handlerTimeoutMs: 100 };
    const d = new BroadcastDispatcher(registry, settings, silent, positions);
    await d.sink('p.t', 0, record(0, { n: 0 }));
    await d.sink('p.t', 0, record(1, { n: 1 }));
    expect(calls).toEqual([0, 1]);
    expect(positions.positionOf('p.t', 0)).toBe('2');
    await vi.advanceTimersByTimeAsync(50);
    expect(calls).toEqual([0, 1, 0]);
    expect(positions.positionOf('p.t', 0)).toBe('2');
    // The client hands record 0 over again: refused, whatever the retries did.
    await d.sink('p.t', 0, record(0, { n: 0 }));
    expect(calls).toEqual([0, 1, 0]);
    expect(d.counters().refused).toBe(1);
    expect(d.handlerCalls).toMatchObject({ failed: 1, retries: 1, exhausted: 0 });
  });
});
