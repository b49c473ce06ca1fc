// The reader, membership, allocator and dispatcher together over a fake KafkaPort and fake locks:
// every transition (join, verdict, rebalance, crash, move, stop at every step) deterministically,
// without a broker. The same behaviour is proven on the real broker in test/*.spec.ts.
import {
  expectClean,
  fakeReader as setup,
  fakeReaderOnceAt as setupOnceAt,
  seeksOf,
  T,
  until,
} from '../../../spec-support/reader-harness.js';
import { BroadcastMessages } from '../../errors/broadcast.messages.js';

describe('BroadcastReader over a fake KafkaPort', () => {
  it('claims the lowest id and seeks every assigned partition to the start snapshot', async () => {
    const s = setup();
    await s.reader.start();
    expect(s.reader.status()).toMatchObject({ state: 'ready', groupId: 'p.bc-0', lockId: 0 });
    expect(seeksOf(s)).toEqual({ 'p.t[0]': '10', 'p.t[1]': '20', 'p.hb[0]': '5' });
    await s.reader.stop();
    expectClean(s, 'after stop');
  });

  it('at every rebalance seeks every partition: after what was handed over, else the snapshot, a new partition from 0', async () => {
    const s = setup();
    await s.reader.start();
    const consumer = s.kafka.latest();
    await consumer.deliver(T, 0, [10, 11]);
    expect(s.received).toEqual([{ n: 10 }, { n: 11 }]);
    s.kafka.addPartition(T, 7); // created after the snapshot
    consumer.join();
    expect(seeksOf(s)).toEqual({ 'p.t[0]': '12', 'p.t[1]': '20', 'p.t[2]': '0', 'p.hb[0]': '5' });
    await s.reader.stop();
  });

  it('rejoins the same group after a crash; its own lingering member is not foreign', async () => {
    const s = setup();
    await s.reader.start();
    const crashed = s.kafka.latest();
    await crashed.deliver(T, 1, [20]);
    crashed.crash(new Error('boom'), true);
    await until(() => s.kafka.consumers.length === 2 && s.kafka.latest().running, 'rejoined');
    const rejoined = s.kafka.latest();
    expect(rejoined.groupId).toBe('p.bc-0');
    // Both members are ours: wait for the old one to expire rather than give the group up.
    s.kafka.expire('p.bc-0', crashed.memberId!);
    rejoined.join();
    await until(() => s.reader.status().state === 'ready', 'ready again');
    expect(s.reader.groupId).toBe('p.bc-0');
    expect(seeksOf(s)).toEqual({ 'p.t[0]': '10', 'p.t[1]': '21', 'p.hb[0]': '5' });
    await s.reader.stop();
    expectClean(s, 'after stop');
  });

  it('refuses a candidate whose first verification finds a foreign member', async () => {
    const s = setupOnceAt('joined', (s) => s.kafka.members('p.bc-0').add('stranger'));
    await s.reader.start();
    expect(s.reader.groupId).toBe('p.bc-1');
    expect([...s.locks.held]).toEqual([1]);
    expect(s.kafka.consumers[0]!.state).toBe('stopped');
    s.kafka.expire('p.bc-0', 'stranger');
    await s.reader.stop();
    expectClean(s, 'after stop');
  });

  it('two newcomers in one generation: the leader keeps the group once the other leaves', async () => {
    const s = setupOnceAt('joined', (s) => {
      // Joined the empty group together with us, after us: we lead this generation.
      s.kafka.members('p.bc-0').add('other-newcomer');
      // The other newcomer does not lead, so it leaves at once; the group rebalances.
      setTimeout(() => {
        s.kafka.expire('p.bc-0', 'other-newcomer');
        s.kafka.latest('p.bc-0').join();
      }, 2);
    });
    await s.reader.start();
    expect(s.reader.groupId).toBe('p.bc-0');
    expect(s.kafka.members('p.bc-0').size).toBe(1);
    expect([...s.locks.held]).toEqual([0]);
    await s.reader.stop();
    expectClean(s, 'after stop');
  });

  it('a newcomer that does not lead its first generation leaves at once, even if the leader goes soon after', async () => {
    // Between our delete and our join, another newcomer joined the empty group: it leads.
    const s = setupOnceAt('snapshot', (s) => {
      s.kafka.members('p.bc-0').add('leader');
      setTimeout(() => s.kafka.expire('p.bc-0', 'leader'), 5);
    });
    await s.reader.start();
    expect(s.reader.groupId).toBe('p.bc-1');
    expect(s.kafka.consumers[0]!.state).toBe('stopped');
    await until(() => s.kafka.members('p.bc-0').size === 0, 'the leader left');
    await s.reader.stop();
    expectClean(s, 'after stop');
  });

  it('moves to another group when a foreign member stays, continuing after what it handed over', async () => {
    const s = setup();
    await s.reader.start();
    const first = s.kafka.latest();
    await first.deliver(T, 0, [10, 11, 12]);
    s.kafka.members('p.bc-0').add('stranger');
    first.join(); // the stranger's join rebalanced the group
    await until(
      () => s.reader.groupId === 'p.bc-1' && s.reader.status().state === 'ready',
      'moved',
    );
    expect(first.state).toBe('stopped');
    expect(seeksOf(s)).toEqual({ 'p.t[0]': '13', 'p.t[1]': '20', 'p.hb[0]': '5' });
    expect([...s.locks.held]).toEqual([1]);
    s.kafka.expire('p.bc-0', 'stranger');
    await s.reader.stop();
    expectClean(s, 'after stop');
  });

  it('losing the lock while a rejoin waits for its join moves away at once, not at the join timeout', async () => {
    // A join timeout far beyond the poll below: only a join that ends on the lock loss passes.
    const s = setup({ joinTimeoutMs: 600_000 });
    await s.reader.start();
    s.kafka.autoJoin = false; // the rejoin's consumer runs but never joins
    s.kafka.latest().crash();
    await until(
      () => s.kafka.consumers.length === 2 && s.kafka.latest().running,
      'the rejoin is waiting for its join',
    );
    const rejoin = s.kafka.latest();
    s.kafka.autoJoin = true;
    s.locks.lose(0);
    await until(
      () => s.reader.groupId === 'p.bc-1' && s.reader.status().state === 'ready',
      'moved to p.bc-1',
    );
    expect(rejoin.state).toBe('stopped');
    expect(s.logs.filter((l) => l.startsWith('Rejoining p.bc-0 failed'))).toEqual([]);
    s.locks.free(0);
    await s.reader.stop();
    expectClean(s, 'after stop');
  });

  it('moves to another group when the lock is lost', async () => {
    const s = setup();
    await s.reader.start();
    s.locks.lose(0);
    await until(
      () => s.reader.groupId === 'p.bc-1' && s.reader.status().state === 'ready',
      'moved',
    );
    expect(s.kafka.consumers[0]!.state).toBe('stopped');
    s.locks.free(0);
    await s.reader.stop();
    expectClean(s, 'after stop');
  });
});

describe('stop() racing start()', () => {
  it('between the ready verdict and start() going on: start() rejects, no lock check outlives stop()', async () => {
    // Only the lock watch's interval is faked: the fake broker's setImmediate turns run as usual.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const s = setup();
      let stopping: Promise<void> | undefined;
      // whenReady's callbacks run after the ready verdict, before start()'s own continuation.
      void s.reader.whenReady().then(() => (stopping = s.reader.stop()));
      const started = await s.reader.start().then(
        () => 'resolved',
        (error: Error) => error.message,
      );
      await stopping;
      expect.soft(started, 'start() after stop()').toBe(BroadcastMessages.stopped());
      expect.soft(vi.getTimerCount(), 'lock check intervals left after stop()').toBe(0);
      expectClean(s, 'after stop');
    } finally {
      vi.useRealTimers();
    }
  });

  it('start() after stop() starts nothing and rejects as stopped', async () => {
    const steps: string[] = [];
    const s = setup({ probe: (step) => steps.push(step) });
    await s.reader.stop();
    await expect(s.reader.start()).rejects.toThrow(BroadcastMessages.stopped());
    expect(steps).toEqual([]);
    expect(s.kafka.consumers).toEqual([]);
    expect(s.reader.status().state).toBe('stopped');
  });
});

const STARTUP_STEPS = [
  'allocate',
  'lock',
  'delete',
  'snapshot',
  'connect',
  'subscribe',
  'run',
  'joined',
  'verify',
];

describe.each(['postgres', 'none'] as const)('stop() at any moment (%s locks)', (mode) => {
  it.each(STARTUP_STEPS)('during startup step %s leaves nothing behind', async (step) => {
    let stopping: Promise<void> | undefined;
    const s = setup({
      mode,
      probe: (at) => {
        if (at === step) stopping ??= s.reader.stop();
      },
    });
    await expect(s.reader.start()).rejects.toThrow();
    expect(stopping, `step ${step} was reached`).toBeDefined();
    await stopping;
    expectClean(s, `stopped at ${step}`);
    expect(s.reader.status().state).toBe('stopped');
    // Nothing starts later either (a join that lands after the stop).
    await new Promise((resolve) => setTimeout(resolve, 30));
    expectClean(s, `a moment after stopping at ${step}`);
  });

  it.each(['rejoin', 'recover', ...STARTUP_STEPS.filter((s) => s !== 'snapshot')])(
    'during recovery step %s leaves nothing behind',
    async (step) => {
      let armed = false;
      let stopping: Promise<void> | undefined;
      const s = setup({
        mode,
        probe: (at) => {
          if (armed && at === step) stopping ??= s.reader.stop();
        },
      });
      await s.reader.start();
      armed = true;
      if (step === 'rejoin') {
        s.kafka.latest().crash();
      } else {
        s.kafka.members(s.reader.groupId!).add('stranger');
        s.kafka.latest().join();
      }
      await until(() => stopping !== undefined, `step ${step} reached`);
      await stopping;
      for (const group of s.kafka.groups.values()) group.delete('stranger');
      expectClean(s, `stopped at ${step}`);
      await new Promise((resolve) => setTimeout(resolve, 30));
      expectClean(s, `a moment after stopping at ${step}`);
    },
  );
});
