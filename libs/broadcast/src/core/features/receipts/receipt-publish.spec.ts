import type { LiveGroupMember } from '../../../interfaces/broadcast-roster.interface.js';
import type { KafkaAdminPort } from '../../../interfaces/kafka-port.interface.js';
import { BroadcastHeaders as H } from '../../broadcast-headers.js';
import { PublishFeatures } from '../../publishing/publish-features.js';
import { BroadcastRoster } from '../roster/broadcast-roster.js';
import { encodeMemberInfo } from '../roster/member-info.js';
import { ReceiptTracker } from './receipt-tracker.js';

const quiet = { log() {}, warn() {}, error() {}, debug() {} };

/** One instance's member of its pool group, reading `p.news`. */
const member = (id: string, n: number): LiveGroupMember => ({
  groupId: `p.svc-${n}`,
  memberId: `m-${id}`,
  topics: ['p.news'],
  userData: encodeMemberInfo(id, 0, true),
});

/**
 * A broker whose member list answers only when the test says: each ListGroups + describe sees
 * the members live when it was asked (`live`), and answers on release().
 */
function slowBroker() {
  const live: LiveGroupMember[] = [];
  const asked: { seen: LiveGroupMember[]; answer: () => void }[] = [];
  const admin = {
    liveMembers: () =>
      new Promise<LiveGroupMember[]>((resolve) => {
        const seen = [...live];
        asked.push({ seen, answer: () => resolve(seen) });
      }),
  } as unknown as KafkaAdminPort;
  const release = () => asked.forEach((a) => a.answer());
  return { admin, live, asked, release };
}

function publisher(admin: KafkaAdminPort, intervalMs = 0) {
  const roster = new BroadcastRoster(
    { topicPrefix: 'p.', intervalMs, lookAtStart: false },
    admin,
    quiet,
  );
  const receipts = new ReceiptTracker('a', 'p.broadcast.receipts.v1', async () => {}, quiet);
  const features = new PublishFeatures({
    instanceId: 'a',
    roster,
    receipts,
    reading: () => true,
    logger: quiet,
  });
  const sent: Record<string, string>[] = [];
  const publish = (timeoutMs = 20, options: Record<string, unknown> = {}) =>
    features.send('news', { receipts: { timeoutMs, ...options } }, async (headers) => {
      sent.push(headers ?? {});
    }) as Promise<{ expected: string[]; ok: string[]; missing: string[] }>;
  return { roster, receipts, publish, sent };
}

describe('publish with receipts: who is expected', () => {
  it('looks at the broker for this publish: an instance that joined while an earlier refresh was under way is expected', async () => {
    const broker = slowBroker();
    broker.live.push(member('a', 0));
    const { roster, publish } = publisher(broker.admin);
    // A refresh under way (the roster's polling, an app's refresh()) listed a alone...
    const refreshing = roster.refresh();
    // ...then b joined its group and became ready, then a publishes with receipts.
    broker.live.push(member('b', 1));
    const receipt = publish();
    await Promise.resolve();
    broker.release();
    await refreshing;
    await Promise.resolve();
    broker.release();
    expect(broker.asked.map((a) => a.seen.map((m) => m.memberId))).toEqual([
      ['m-a'],
      ['m-a', 'm-b'],
    ]);
    // Nobody answers here: both expected, both missing after the timeout.
    expect((await receipt).expected).toEqual(['a', 'b']);
  });

  it('sends after the look answered, and never before', async () => {
    const broker = slowBroker();
    broker.live.push(member('a', 0));
    const { publish, sent } = publisher(broker.admin);
    const receipt = publish();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(sent).toEqual([]);
    broker.release();
    expect((await receipt).missing).toEqual(['a']);
    expect(sent).toHaveLength(1);
  });

  it('publishes asked for in one turn share one look; a later one looks again', async () => {
    const broker = slowBroker();
    broker.live.push(member('a', 0));
    const { publish } = publisher(broker.admin);
    const both = [publish(), publish()];
    await Promise.resolve();
    await Promise.resolve();
    broker.release();
    await Promise.all(both);
    expect(broker.asked).toHaveLength(1);
    const third = publish();
    await new Promise((resolve) => setImmediate(resolve));
    broker.release();
    await third;
    expect(broker.asked).toHaveLength(2);
  });

  it("does not start the roster's polling: a fleet that publishes receipts stays idle between them", async () => {
    const broker = slowBroker();
    broker.live.push(member('a', 0));
    const { roster, publish } = publisher(broker.admin, 5);
    roster.start();
    const receipt = publish();
    await Promise.resolve();
    broker.release();
    await receipt;
    await new Promise((resolve) => setTimeout(resolve, 50));
    broker.release();
    await roster.stop();
    expect(broker.asked).toHaveLength(1);
  });
});

describe("publish with receipts, expected: 'roster'", () => {
  it("expects the roster's latest refresh without a look, and refreshes it when one is missing", async () => {
    const broker = slowBroker();
    broker.live.push(member('a', 0));
    const { roster, publish, sent } = publisher(broker.admin, 60_000);
    roster.start();
    const refreshing = roster.refresh();
    broker.release();
    await refreshing;
    // b joined after that refresh: not expected, as GUIDE.md (Receipts) states.
    broker.live.push(member('b', 1));
    const receipt = await publish(20, { expected: 'roster' });
    expect(sent).toHaveLength(1);
    expect(receipt.expected).toEqual(['a']);
    expect(receipt.missing).toEqual(['a']);
    // The publish asked nothing; its missing instance asked for a refresh, which sees b.
    expect(broker.asked.map((a) => a.seen.map((m) => m.memberId))).toEqual([
      ['m-a'],
      ['m-a', 'm-b'],
    ]);
    broker.release();
    await roster.stop();
  });

  it('an answer from an instance the view did not list refreshes the roster while the receipt waits', async () => {
    const broker = slowBroker();
    broker.live.push(member('a', 0));
    const { roster, receipts, publish, sent } = publisher(broker.admin, 60_000);
    roster.start();
    const refreshing = roster.refresh();
    broker.release();
    await refreshing;
    broker.live.push(member('b', 1));
    const receipt = publish(1_000, { expected: 'roster' });
    await new Promise((resolve) => setImmediate(resolve));
    const id = sent[0]?.[H.receipt];
    const ack = (i: string) =>
      receipts.accept({
        key: Buffer.from('a'),
        value: Buffer.from(JSON.stringify({ r: id, i })),
        timestamp: '0',
        offset: '0',
      });
    ack('b');
    expect(broker.asked).toHaveLength(2);
    ack('a');
    const done = await receipt;
    expect(done.expected).toEqual(['a']);
    expect(done.ok).toEqual(['a']);
    broker.release();
    expect((await roster.refresh()).map((i) => i.instanceId)).toEqual(['a', 'b']);
    await roster.stop();
  });

  it('looks at the broker when the roster has no refresh of at most two periods', async () => {
    const broker = slowBroker();
    broker.live.push(member('a', 0), member('b', 1));
    const { roster, publish, sent } = publisher(broker.admin, 60_000);
    roster.start();
    const receipt = publish(20, { expected: 'roster' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    // The polling's first refresh and the publish's own look, neither answered: nothing sent.
    expect(broker.asked).toHaveLength(2);
    expect(sent).toEqual([]);
    broker.release();
    expect((await receipt).expected).toEqual(['a', 'b']);
    broker.release();
    await roster.stop();
  });

  it('refuses any other value', async () => {
    const { publish } = publisher(slowBroker().admin);
    await expect(publish(20, { expected: 'cache' })).rejects.toThrow(/receipts\.expected/);
  });
});
