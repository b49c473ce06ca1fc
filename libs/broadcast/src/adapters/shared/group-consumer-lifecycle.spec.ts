import type { GroupConsumerSpec } from '../../interfaces/kafka-port.interface.js';
import { deferred } from '../../shared/async.utils.js';
import { type GroupConsumerClient, GroupConsumerLifecycle } from './group-consumer-lifecycle.js';

function setup(closeBoundMs?: number) {
  const crashes: string[] = [];
  const warnings: string[] = [];
  const probed: string[] = [];
  const spec = {
    groupId: 'g',
    topics: ['t'],
    listener: { joined: () => {}, crashed: (error: Error) => crashes.push(error.message) },
  } as unknown as GroupConsumerSpec;
  const lifecycle = new GroupConsumerLifecycle(spec, {
    logger: { log: () => {}, warn: (m: string) => warnings.push(m), error: () => {} },
    probe: (step) => probed.push(step),
    closeBoundMs,
  });
  return { lifecycle, crashes, warnings, probed };
}

/** A client recording its steps; `connected` holds its connect, `closed` its close. */
function recordingClient(
  done: string[],
  {
    connected = Promise.resolve(),
    closed = Promise.resolve(),
    fatal = () => undefined,
  }: {
    connected?: Promise<void>;
    closed?: Promise<void>;
    fatal?: (error: unknown) => Error | undefined;
  } = {},
): GroupConsumerClient {
  return {
    errors: { fatal },
    connect: () => connected.then(() => void done.push('connect')),
    subscribe: () => void done.push('subscribe'),
    run: () => void done.push('run'),
    seek: () => undefined,
    interrupt: () => void done.push('interrupt'),
    close: () => (done.push('close'), closed),
    cut: () => void done.push('cut'),
  };
}

describe('GroupConsumerLifecycle', () => {
  it('makes the client, then runs its start steps once, in order, with the probe before each', async () => {
    const { lifecycle, probed } = setup();
    const done: string[] = [];
    const make = () => recordingClient(done);
    await Promise.all([lifecycle.start(make), lifecycle.start(make)]);
    expect(done).toEqual(['connect', 'subscribe', 'run']);
    expect(probed).toEqual(['connect', 'subscribe', 'run']);
    expect(lifecycle.phase).toBe('started');
  });

  it('a stop during a step interrupts it, waits for it, skips the rest and closes, once', async () => {
    const { lifecycle } = setup();
    const done: string[] = [];
    const connected = deferred<void>();
    const starting = lifecycle.start(() => recordingClient(done, { connected: connected.promise }));
    await vi.waitFor(() => expect(lifecycle.phase).toBe('starting'));
    const stopping = lifecycle.stop();
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toEqual(['interrupt']);
    connected.resolve();
    await Promise.all([starting, stopping]);
    expect(done).toEqual(['interrupt', 'connect', 'close']);
    expect(lifecycle.stop()).toBe(stopping);
    expect(lifecycle.phase).toBe('stopped');
  });

  it('a stop while the client is being made starts nothing: the client made is closed', async () => {
    const { lifecycle, probed } = setup();
    const done: string[] = [];
    const made = deferred<GroupConsumerClient>();
    const starting = lifecycle.start(() => made.promise);
    const stopping = lifecycle.stop();
    made.resolve(recordingClient(done));
    await Promise.all([starting, stopping]);
    expect(done).toEqual(['close']);
    expect(probed).toEqual([]);
  });

  it('a stop before any start makes nothing, and a later start starts nothing', async () => {
    const { lifecycle } = setup();
    const make = vi.fn(() => recordingClient([]));
    await lifecycle.stop();
    await lifecycle.start(make);
    expect(make).not.toHaveBeenCalled();
    expect(lifecycle.phase).toBe('stopped');
  });

  it('a start that fails is read by the client as a startup error; the stop still closes', async () => {
    const { lifecycle } = setup();
    const done: string[] = [];
    const failing = {
      ...recordingClient(done, { fatal: (e) => new Error(`fatal: ${(e as Error).message}`) }),
      connect: () => Promise.reject(new Error('refused')),
    };
    await expect(lifecycle.start(() => failing)).rejects.toThrow('fatal: refused');
    await lifecycle.stop();
    expect(done).toEqual(['interrupt', 'close']);
  });

  it('a close that outlasts its bound is cut, and the stop says so', async () => {
    vi.useFakeTimers();
    try {
      const { lifecycle, warnings } = setup(6_000);
      const done: string[] = [];
      const closed = deferred<void>();
      await lifecycle.start(() => ({
        ...recordingClient(done, { closed: closed.promise }),
        cut: () => void (done.push('cut'), closed.resolve()),
      }));
      const stopping = lifecycle.stop();
      await vi.advanceTimersByTimeAsync(6_000);
      await stopping;
      expect(done.slice(3)).toEqual(['interrupt', 'close', 'cut']);
      expect(warnings).toEqual([
        'Broadcast consumer g did not disconnect cleanly: disconnect of g timed out after 6000 ms; its requests were cut',
      ]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a crash is reported once, halting the client, and never after a stop was asked', async () => {
    const { lifecycle, crashes } = setup();
    await lifecycle.start(() => recordingClient([]));
    const halted: string[] = [];
    lifecycle.crashed('fenced', () => halted.push('halt'));
    lifecycle.crashed(new Error('again'));
    expect(crashes).toEqual(['fenced']);
    expect(halted).toEqual(['halt']);

    const other = setup();
    await other.lifecycle.start(() => recordingClient([]));
    void other.lifecycle.stop();
    other.lifecycle.crashed(new Error('late'));
    expect(other.crashes).toEqual([]);
  });
});
