import type { GroupConsumerSpec } from '../../interfaces/kafka-port.interface.js';
import { GroupConsumerLifecycle, type StartSteps } from './group-consumer-lifecycle.js';

function setup(fatal: (error: unknown) => Error | undefined = () => undefined) {
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
    errors: { fatal },
    probe: (step) => probed.push(step),
  });
  return { lifecycle, crashes, warnings, probed };
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function recordingSteps(done: string[], connected = Promise.resolve()): StartSteps {
  return {
    connect: () => connected.then(() => void done.push('connect')),
    subscribe: () => void done.push('subscribe'),
    run: () => void done.push('run'),
  };
}

describe('GroupConsumerLifecycle', () => {
  it('runs the start steps once, in order, with the probe before each', async () => {
    const { lifecycle, probed } = setup();
    const done: string[] = [];
    const steps = recordingSteps(done);
    await Promise.all([lifecycle.start(steps), lifecycle.start(steps)]);
    expect(done).toEqual(['connect', 'subscribe', 'run']);
    expect(probed).toEqual(['connect', 'subscribe', 'run']);
    expect(lifecycle.phase).toBe('started');
  });

  it('a stop during the start waits for the step in flight and skips the rest', async () => {
    const { lifecycle } = setup();
    const done: string[] = [];
    const connected = deferred();
    const starting = lifecycle.start(recordingSteps(done, connected.promise));
    const order: string[] = [];
    const stopping = lifecycle.stop({
      interrupt: () => void order.push('interrupt'),
      close: async () => void order.push(`close after ${done.join(',')}`),
    });
    expect(order).toEqual(['interrupt']);
    connected.resolve();
    await Promise.all([starting, stopping]);
    expect(order).toEqual(['interrupt', 'close after connect']);
    expect(lifecycle.stop({ close: () => Promise.reject(new Error('twice')) })).toBe(stopping);
  });

  it('a start that fails is read by the client as a startup error; the stop still closes', async () => {
    const { lifecycle } = setup((error) => new Error(`fatal: ${(error as Error).message}`));
    const failing = { ...recordingSteps([]), connect: () => Promise.reject(new Error('refused')) };
    await expect(lifecycle.start(failing)).rejects.toThrow('fatal: refused');
    const closed: string[] = [];
    await lifecycle.stop({ close: async () => void closed.push('closed') });
    expect(closed).toEqual(['closed']);
  });

  it('a stop that cannot finish is logged, not thrown', async () => {
    vi.useFakeTimers();
    try {
      const { lifecycle, warnings } = setup();
      const stopping = lifecycle.stop({ close: () => new Promise(() => {}) });
      await vi.advanceTimersByTimeAsync(30_000);
      await stopping;
      expect(warnings).toEqual([
        'Broadcast consumer g did not disconnect cleanly: disconnect of g timed out after 30000 ms',
      ]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a crash is reported once, halting the client, and never after a stop was asked', () => {
    const { lifecycle, crashes } = setup();
    const halted: string[] = [];
    lifecycle.crashed('fenced', () => halted.push('halt'));
    lifecycle.crashed(new Error('again'));
    expect(crashes).toEqual(['fenced']);
    expect(halted).toEqual(['halt']);

    const other = setup();
    void other.lifecycle.stop({ close: async () => {} });
    other.lifecycle.crashed(new Error('late'));
    expect(other.crashes).toEqual([]);
  });
});
