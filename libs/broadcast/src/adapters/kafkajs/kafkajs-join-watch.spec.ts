import { KafkajsEarlierMembers } from './kafkajs-earlier-members.js';
import { KafkajsJoinWatch } from './kafkajs-join-watch.js';

const SEND = Symbol('private:Broker:sendRequest');
const JOIN_GROUP = 11;
const HEARTBEAT = 12;
const SYNC_GROUP = 14;

/** A Broker shaped like kafkajs 2.2.4's: the private send on its prototype, one connection. */
class FakeBroker {
  readonly left: string[] = [];
  readonly rejected: Error[] = [];
  /** Requests in the order they were sent: 'leave m-1', 'join'. */
  readonly sent: string[] = [];
  leaveAnswer: (memberId: string) => Promise<void> = async () => undefined;
  answer: (apiKey: number) => Promise<unknown> = () => new Promise(() => {});
  readonly connectionPool = {
    pool: [
      {
        rejectRequests: (error: Error) => this.rejected.push(error),
        requestQueue: { emit: () => true },
      },
    ],
  };
  [SEND](protocolRequest: { request: { apiKey: number } }): Promise<unknown> {
    if (protocolRequest.request.apiKey === JOIN_GROUP) this.sent.push('join');
    return this.answer(protocolRequest.request.apiKey);
  }
  async leaveGroup({ memberId }: { groupId: string; memberId: string }): Promise<void> {
    this.sent.push(`leave ${memberId}`);
    await this.leaveAnswer(memberId);
    this.left.push(memberId);
  }
  send(apiKey: number): Promise<unknown> {
    return (this as unknown as Record<symbol, (r: unknown) => Promise<unknown>>)[SEND]!({
      request: { apiKey },
    });
  }
}

function memberIdRequired(memberId: string): Error {
  return Object.assign(new Error('The group member needs to have a valid member id'), {
    name: 'KafkaJSMemberIdRequired',
    memberId,
  });
}

/** A watch on a Cluster whose only broker (the seed broker, also the coordinator) is `broker`. */
async function watched(
  broker: FakeBroker,
  ids: string[],
  stopped = { now: false },
  ledger?: KafkajsEarlierMembers,
) {
  const cluster = {
    brokerPool: { seedBroker: broker, brokers: {} },
    findGroupCoordinator: async (_args: { groupId: string }) => broker,
  };
  const watch = new KafkajsJoinWatch(
    'g',
    { joining: (id) => ids.push(id), stopped: () => stopped.now },
    ledger,
  );
  expect(watch.watch(cluster)).toBe(true);
  await cluster.findGroupCoordinator({ groupId: 'g' });
  return watch;
}

describe('KafkajsJoinWatch', () => {
  it('reports the member id the broker hands out before the join that uses it', async () => {
    const broker = new FakeBroker();
    const ids: string[] = [];
    await watched(broker, ids);
    broker.answer = () => Promise.reject(memberIdRequired('m-1'));
    await expect(broker.send(JOIN_GROUP)).rejects.toThrow('valid member id');
    expect(ids).toEqual(['m-1']);
  });

  it('on stop, leaves with that id and fails the unanswered join at once', async () => {
    const broker = new FakeBroker();
    const watch = await watched(broker, []);
    broker.answer = () => Promise.reject(memberIdRequired('m-1'));
    await broker.send(JOIN_GROUP).catch(() => undefined);
    broker.answer = () => new Promise(() => {}); // the second JoinGroup's answer is lost
    void broker.send(JOIN_GROUP);
    await watch.abandon();
    expect(broker.left).toEqual(['m-1']);
    expect(broker.rejected.map((e) => [e.name, (e as { retriable?: boolean }).retriable])).toEqual([
      ['KafkaJSBroadcastStopped', false],
    ]);
  });

  it('on stop between an answered JoinGroup and its SyncGroup, leaves and ends the join', async () => {
    const broker = new FakeBroker();
    const watch = await watched(broker, []);
    broker.answer = () => Promise.resolve({ memberId: 'm-2' });
    await broker.send(JOIN_GROUP);
    // The leader refreshes the metadata now: no JoinGroup or SyncGroup is in flight.
    await watch.abandon();
    expect(broker.left).toEqual(['m-2']);
    expect(broker.rejected).toHaveLength(1);
  });

  it('on stop once joined, leaves nothing itself (kafkajs leaves its member) and cuts nothing', async () => {
    const broker = new FakeBroker();
    const watch = await watched(broker, []);
    broker.answer = () => Promise.resolve({ memberId: 'm-2' });
    await broker.send(JOIN_GROUP);
    await broker.send(SYNC_GROUP);
    watch.joined('m-2');
    await watch.abandon();
    expect(broker.left).toEqual([]);
    expect(broker.rejected).toEqual([]);
  });

  it('sends no join after a stop; other requests pass', async () => {
    const broker = new FakeBroker();
    const stopped = { now: false };
    await watched(broker, [], stopped);
    broker.answer = () => Promise.resolve({ memberId: 'm-2' });
    stopped.now = true;
    await expect(broker.send(JOIN_GROUP)).rejects.toThrow('stopped during its join');
    await expect(broker.send(SYNC_GROUP)).rejects.toThrow('stopped during its join');
    // Other requests (a LeaveGroup, a heartbeat) pass.
    await expect(broker.send(HEARTBEAT)).resolves.toEqual({ memberId: 'm-2' });
  });

  it('a rejoin removes the member a lost consumer of the group left behind, before its JoinGroup', async () => {
    const ledger = new KafkajsEarlierMembers();
    const lost = new FakeBroker();
    await watched(lost, [], undefined, ledger);
    lost.answer = () => Promise.resolve({ memberId: 'm-old' });
    await lost.send(JOIN_GROUP);
    // The consumer crashed without leaving (the broker was away); the engine joins again.
    const broker = new FakeBroker();
    await watched(broker, [], undefined, ledger);
    broker.answer = () => Promise.resolve({ memberId: 'm-new' });
    await broker.send(JOIN_GROUP);
    await broker.send(JOIN_GROUP);
    expect(broker.sent).toEqual(['leave m-old', 'join', 'join']);
    expect(ledger.of('g')).toEqual(['m-new']);
    expect(ledger.of('other')).toEqual([]);
  });

  it('keeps an earlier member whose leave failed for the next JoinGroup; forgets an unknown one', async () => {
    const ledger = new KafkajsEarlierMembers();
    ledger.handedOut('g', 'm-1');
    ledger.handedOut('g', 'm-2');
    const broker = new FakeBroker();
    await watched(broker, [], undefined, ledger);
    const failures: Record<string, string> = {
      'm-1': 'COORDINATOR_LOAD_IN_PROGRESS',
      'm-2': 'UNKNOWN_MEMBER_ID',
    };
    broker.leaveAnswer = async (memberId) => {
      const type = failures[memberId];
      if (type) throw Object.assign(new Error(type), { name: 'KafkaJSProtocolError', type });
    };
    broker.answer = () => Promise.reject(new Error('The coordinator is loading'));
    await broker.send(JOIN_GROUP).catch(() => undefined);
    expect(ledger.of('g')).toEqual(['m-1']);
    delete failures['m-1'];
    broker.answer = () => Promise.resolve({ memberId: 'm-3' });
    await broker.send(JOIN_GROUP);
    expect(broker.sent).toEqual(['leave m-1', 'leave m-2', 'join', 'leave m-1', 'join']);
    expect(ledger.of('g')).toEqual(['m-3']);
  });

  it('hooks nothing on a kafkajs without the coordinator lookup', () => {
    const hooks = { joining: () => undefined, stopped: () => false };
    expect(new KafkajsJoinWatch('g', hooks).watch({})).toBe(false);
  });
});
