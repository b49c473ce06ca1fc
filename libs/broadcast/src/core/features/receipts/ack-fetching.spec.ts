import type { BroadcastReceipt } from '../../../interfaces/broadcast-receipt.interface.js';
import type { KafkaAdminPort } from '../../../interfaces/kafka-port.interface.js';
import { PublishFeatures } from '../../publishing/publish-features.js';
import { BroadcastRoster } from '../roster/broadcast-roster.js';
import { encodeMemberInfo } from '../roster/member-info.js';
import { AckFetching } from './ack-fetching.js';
import { ReceiptTracker } from './receipt-tracker.js';

const quiet = { log() {}, warn() {}, error() {}, debug() {} };
const ACKS = 'p.broadcast.receipts.v1';

/** Publisher `a`, not reading the topic itself, and `b`; `send` decides what each send does. */
function publisher(send: (headers: Record<string, string>) => Promise<void>) {
  const admin = {
    liveMembers: async () =>
      ['b'].map((id, n) => ({
        groupId: `p.svc-${n}`,
        memberId: `m-${id}`,
        topics: ['p.news'],
        userData: encodeMemberInfo(id, 0, true),
      })),
  } as unknown as KafkaAdminPort;
  const roster = new BroadcastRoster(
    { topicPrefix: 'p.', intervalMs: 0, lookAtStart: false },
    admin,
    quiet,
  );
  // No linger: paused again as soon as no receipt waits (the linger has its own test).
  const receipts = new ReceiptTracker('a', ACKS, async () => {}, quiet, 0);
  const features = new PublishFeatures({
    instanceId: 'a',
    roster,
    receipts,
    reading: () => true,
    logger: quiet,
  });
  const publish = (timeoutMs = 10_000) =>
    features.send('news', { receipts: { timeoutMs } }, (headers) =>
      send(headers ?? {}),
    ) as Promise<BroadcastReceipt>;
  const ack = (headers: Record<string, string>) =>
    receipts.accept({
      key: Buffer.from('a'),
      value: Buffer.from(JSON.stringify({ r: headers['x-broadcast-receipt'], i: 'b' })),
      timestamp: '0',
      offset: '0',
    });
  return { publish, fetching: receipts.fetching, ack };
}

describe('AckFetching: the receipts topic is fetched only while a receipt of ours waits', () => {
  it('pauses only the receipts topic; a hold resumes it, its release pauses it again, once', () => {
    const fetching = new AckFetching(ACKS, 0);
    const changes: boolean[] = [];
    const unwatch = fetching.watch(() => changes.push(fetching.paused(ACKS)));
    expect([fetching.paused(ACKS), fetching.paused('p.news')]).toEqual([true, false]);
    const first = fetching.hold();
    const second = fetching.hold();
    first();
    first();
    expect(fetching.paused(ACKS)).toBe(false);
    second();
    expect(changes).toEqual([false, true]);
    unwatch();
    fetching.hold();
    expect(changes).toEqual([false, true]);
  });

  it('lingers after the last release, a new hold keeps it fetched, and a stop leaves no timer', () => {
    vi.useFakeTimers();
    try {
      const fetching = new AckFetching(ACKS, 1_000);
      fetching.hold()();
      vi.advanceTimersByTime(999);
      expect(fetching.paused(ACKS)).toBe(false);
      const again = fetching.hold();
      vi.advanceTimersByTime(5_000);
      expect(fetching.paused(ACKS)).toBe(false);
      again();
      vi.advanceTimersByTime(1_000);
      expect(fetching.paused(ACKS)).toBe(true);
      const held = fetching.hold();
      fetching.stop();
      held();
      expect(fetching.paused(ACKS)).toBe(true);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('is resumed before the message is sent, until its receipt resolves, over overlapping receipts', async () => {
    const sends: Record<string, string>[] = [];
    const pausedAtSend: boolean[] = [];
    const p = publisher(async (headers) => {
      pausedAtSend.push(p.fetching.paused(ACKS));
      sends.push(headers);
    });
    expect(p.fetching.paused(ACKS)).toBe(true);
    const one = p.publish();
    const two = p.publish();
    await vi.waitFor(() => expect(sends).toHaveLength(2));
    expect(pausedAtSend).toEqual([false, false]);
    p.ack(sends[0]!);
    const first = await one;
    expect(first.ok).toEqual(['b']);
    // The second receipt still waits: its acks are still fetched.
    expect(p.fetching.paused(ACKS)).toBe(false);
    p.ack(sends[1]!);
    expect((await two).ok).toEqual(['b']);
    expect(p.fetching.paused(ACKS)).toBe(true);
  });

  it('is paused again when the send fails or the receipt times out', async () => {
    const failing = publisher(async () => {
      throw new Error('broker down');
    });
    await expect(failing.publish()).rejects.toThrow('broker down');
    expect(failing.fetching.paused(ACKS)).toBe(true);
    const unanswered = publisher(async () => undefined);
    expect((await unanswered.publish(5)).missing).toEqual(['b']);
    expect(unanswered.fetching.paused(ACKS)).toBe(true);
  });
});
