import { KafkajsJoinWatch } from './kafkajs-join-watch.js';

const SEND = Symbol('private:Broker:sendRequest');
const JOIN_GROUP = 11;
const HEARTBEAT = 12;

/** A Broker shaped like kafkajs 2.2.4's: the private send on its prototype, one connection. */
class FakeBroker {
  readonly left: string[] = [];
  readonly rejected: Error[] = [];
  answer: (apiKey: number) => Promise<unknown> = () => new Promise(() => {});
  readonly connectionPool = {
    pool: [{ rejectRequests: (error: Error) => this.rejected.push(error) }],
  };
  [SEND](protocolRequest: { request: { apiKey: number } }): Promise<unknown> {
    return this.answer(protocolRequest.request.apiKey);
  }
  async leaveGroup({ memberId }: { groupId: string; memberId: string }): Promise<void> {
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

async function watched(broker: FakeBroker, ids: string[]) {
  const cluster = { findGroupCoordinator: async (_args: { groupId: string }) => broker };
  const watch = new KafkajsJoinWatch('g', (id) => ids.push(id));
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
    expect(broker.rejected.map((e) => e.name)).toEqual(['KafkaJSBroadcastStopped']);
  });

  it('sends no join after a stop, and leaves nothing when no join is unanswered', async () => {
    const broker = new FakeBroker();
    const watch = await watched(broker, []);
    broker.answer = () => Promise.resolve({ memberId: 'm-2' });
    await broker.send(JOIN_GROUP);
    await watch.abandon();
    expect(broker.left).toEqual([]);
    await expect(broker.send(JOIN_GROUP)).rejects.toThrow('stopped during its join');
    // Other requests (a LeaveGroup, a heartbeat) pass.
    await expect(broker.send(HEARTBEAT)).resolves.toEqual({ memberId: 'm-2' });
  });

  it('hooks nothing on a kafkajs without the coordinator lookup', () => {
    expect(new KafkajsJoinWatch('g', () => {}).watch({})).toBe(false);
  });
});
