// Issue #23, defects 2 and (b): nothing reaches a handler before the group is proven exclusive,
// a refused candidate hands nothing over (so a replay window is never handed over twice), and a
// verdict of an earlier generation (the contest timer) never moves a healthy reader.
import {
  expectClean,
  fakeReader,
  fakeReaderOnceAt,
  T,
  until,
} from '../../../spec-support/reader-harness.js';
import { deferred } from '../../shared/async.utils.js';

/**
 * Starts the reader; once its first verification saw [ours, stranger] (ours is the leader, it
 * joined first, and waits for the stranger), the stranger leaves.
 */
async function startWithStrangerLeaving(s: ReturnType<typeof fakeReader>): Promise<void> {
  const describe = s.kafka.admin.describeGroup.bind(s.kafka.admin);
  let described = 0;
  s.kafka.admin.describeGroup = async (groupId) => {
    const answer = await describe(groupId);
    described++;
    return answer;
  };
  const starting = s.reader.start();
  await until(() => described >= 1, 'first verification');
  s.kafka.expire('p.bc-0', 'stranger');
  return starting;
}

describe('BroadcastReader: exclusivity before handlers', () => {
  it('holds records fetched before verification, and a refused candidate hands nothing over', async () => {
    const receivedAtRefusal: unknown[][] = [];
    const s = fakeReaderOnceAt('joined', (s) => {
      // A stranger shares the first candidate: it is refused after its verification.
      s.kafka.members('p.bc-0').add('stranger');
      // The client fetched before the verification ended (kafkajs does: seeks are applied at once).
      setImmediate(() => void s.kafka.latest('p.bc-0').deliver(T, 0, [10, 11]));
    });
    const refusedAt = s.logs.length;
    await s.reader.start();
    receivedAtRefusal.push([...s.received]);
    expect(s.reader.groupId).toBe('p.bc-1');
    expect(receivedAtRefusal[0], 'handed over by the refused candidate').toEqual([]);
    // The next candidate reads the same records from the same start position: once each.
    await s.kafka.latest('p.bc-1').deliver(T, 0, [10, 11]);
    expect(s.received).toEqual([{ n: 10 }, { n: 11 }]);
    expect(s.logs.slice(refusedAt).join('\n')).not.toMatch(/failed/i);
    s.kafka.expire('p.bc-0', 'stranger');
    await s.reader.stop();
    expectClean(s, 'after stop');
  });

  it('takes the start snapshot (a replay window) once per start, not once per candidate', async () => {
    let snapshots = 0;
    const s = fakeReaderOnceAt('joined', (s) => s.kafka.members('p.bc-0').add('stranger'), {
      // A replay window: the start is looked up by time, so each lookup could move it.
      startOffsets: async (topics) => {
        snapshots++;
        return new Map(topics.map((t) => [t, new Map([[0, String(snapshots)]])]));
      },
    });
    await s.reader.start();
    expect(s.reader.groupId).toBe('p.bc-1');
    await s.kafka.latest('p.bc-1').deliver(T, 0, [1, 2]);
    // From the first snapshot (offset 1): the second candidate did not move the start to 2.
    expect(s.received).toEqual([{ n: 1 }, { n: 2 }]);
    expect(snapshots).toBe(1);
    s.kafka.expire('p.bc-0', 'stranger');
    await s.reader.stop();
  });

  it('a contest begun in an earlier generation does not move the reader once the stranger left', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const s = fakeReader({ contestGraceMs: 1_000 });
      const starting = s.reader.start();
      await vi.advanceTimersByTimeAsync(0);
      await starting;
      const consumer = s.kafka.latest();
      // A stranger joins the established group: the reader waits for it to leave (contest).
      s.kafka.members('p.bc-0').add('stranger');
      consumer.join();
      await until(() => s.logs.some((l) => l.includes('waiting for them to leave')), 'contest');
      // It leaves; the next generation's verification is still under way when the grace ends.
      s.kafka.expire('p.bc-0', 'stranger');
      const describing = deferred<void>();
      s.kafka.describeGate = describing.promise;
      consumer.join();
      await vi.advanceTimersByTimeAsync(2_000);
      await until(() => s.kafka.describeWaiting > 0, 'verification under way');
      expect(s.logs.filter((l) => l.startsWith('Giving up'))).toEqual([]);
      describing.resolve();
      s.kafka.describeGate = undefined;
      await until(() => s.reader.status().state === 'ready', 'ready again');
      expect(s.reader.groupId).toBe('p.bc-0');
      expect(consumer.state).toBe('running');
      await s.reader.stop();
      expectClean(s, 'after stop');
    } finally {
      vi.useRealTimers();
    }
  });

  it('a leader whose fellow newcomer left during the contest keeps the group: the contest describes again before it concludes', async () => {
    // Issue #31, defect 1: under KIP-848 the other member's leave can move this member's epoch
    // without a new assignment, so no new generation reaches the membership; its contest alone
    // must notice that the group is now its own.
    const s = fakeReaderOnceAt('joined', (s) => s.kafka.members('p.bc-0').add('stranger'), {
      contestGraceMs: 400,
    });
    const starting = startWithStrangerLeaving(s);
    await starting;
    expect(s.reader.groupId).toBe('p.bc-0');
    expect(s.kafka.consumers.map((c) => c.groupId)).toEqual(['p.bc-0']);
    await s.reader.stop();
    expectClean(s, 'after stop');
  });

  it('a leader whose fellow newcomer left concludes its contest within moments, long before its grace ends', async () => {
    // Issue #29: in a lock-free mass start each such contest waited the whole half grace (5 s by
    // default) when no new generation told the leader that the other member left.
    const s = fakeReaderOnceAt('joined', (s) => s.kafka.members('p.bc-0').add('stranger'), {
      contestGraceMs: 600_000,
    });
    const starting = startWithStrangerLeaving(s);
    await until(() => s.reader.status().state === 'ready', 'ready', 10_000);
    await starting;
    expect(s.reader.groupId).toBe('p.bc-0');
    await s.reader.stop();
    expectClean(s, 'after stop');
  });

  it('a member whose join was never answered is ours: the next rejoin waits for it to expire instead of moving away', async () => {
    // Issue #31, defect 2: a KIP-848 member id is known before the broker answers the join.
    const s = fakeReader({ joinTimeoutMs: 5_000 });
    await s.reader.start();
    const first = s.kafka.latest();
    s.kafka.autoJoin = false;
    first.crash(new Error('boom'), true);
    await until(() => s.kafka.consumers.length === 2 && s.kafka.latest().running, 'rejoining');
    const unanswered = s.kafka.latest();
    unanswered.joinUnanswered();
    s.kafka.autoJoin = true;
    unanswered.crash(new Error('boom again'), true);
    await until(() => s.kafka.consumers.length >= 3, 'rejoined');
    await until(
      () => s.logs.some((l) => l.includes('to expire before reading') || l.startsWith('Giving up')),
      'verified',
    );
    expect(s.logs.filter((l) => l.startsWith('Giving up'))).toEqual([]);
    s.kafka.expire('p.bc-0', first.memberId!);
    s.kafka.expire('p.bc-0', unanswered.memberId!);
    s.kafka.latest().join();
    await until(() => s.reader.status().state === 'ready', 'ready again');
    expect(s.reader.groupId).toBe('p.bc-0');
    await s.reader.stop();
    expectClean(s, 'after stop');
  });

  it('a rejoined member hands nothing over next to its own expiring predecessor, then reads from its position', async () => {
    const s = fakeReader();
    await s.reader.start();
    const crashed = s.kafka.latest();
    crashed.crash(new Error('boom'), true);
    await until(() => s.kafka.consumers.length === 2 && s.kafka.latest().running, 'rejoined');
    const rejoined = s.kafka.latest();
    await until(() => s.logs.some((l) => l.includes('to expire before reading')), 'verified');
    // Not proven alone yet (its own crashed member still counts): held, then dropped unhandled.
    await rejoined.deliver(T, 0, [10]);
    expect(s.received).toEqual([]);
    expect(s.reader.status().state).toBe('recovering');
    s.kafka.expire('p.bc-0', crashed.memberId!);
    // The held record outlasted the fake's 1 s join timeout: the reader may have rejoined again.
    s.kafka.latest().join();
    await until(() => s.reader.status().state === 'ready', 'ready again');
    await s.kafka.latest().deliver(T, 0, [10, 11]);
    expect(s.received).toEqual([{ n: 10 }, { n: 11 }]);
    await s.reader.stop();
    expectClean(s, 'after stop');
  });
});
