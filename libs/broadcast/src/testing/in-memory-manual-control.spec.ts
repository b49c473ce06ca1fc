// The in-memory broker's manual mode, which the state-machine specs drive: joins, crashes,
// foreign members and deliveries happen only when the test says, on the broker's own groups.
import type {
  GroupConsumerListener,
  GroupConsumerSpec,
  IncomingRecord,
} from '../interfaces/kafka-port.interface.js';
import { InMemoryManualPort } from './in-memory-manual-control.js';

function spec(groupId: string, topics: string[]) {
  const heard: string[] = [];
  const values: string[] = [];
  const listener: GroupConsumerListener = {
    joining: (memberId) => void heard.push(`joining ${memberId}`),
    joined: (memberId, assignment, leader) =>
      void heard.push(`joined ${memberId} ${JSON.stringify([...assignment])} leader=${leader}`),
    positioned: () => undefined,
    crashed: (error) => void heard.push(`crashed ${error.message}`),
  };
  const sink = (_t: string, _p: number, record: IncomingRecord) =>
    void values.push(`${record.offset}:${record.value!.toString()}`);
  const s: GroupConsumerSpec = { groupId, topics, fromBeginning: false, sink, listener };
  return { s, heard, values };
}

describe('InMemoryManualPort', () => {
  it('a foreign member joins the group unheard; a join of ours reports the rebalance', async () => {
    const kafka = new InMemoryManualPort();
    kafka.addTopic('t', ['3', '5']);
    const { s, heard } = spec('g', ['t']);
    const consumer = kafka.createGroupConsumer(s);
    await consumer.start();
    const ours = consumer.memberId!;
    expect(heard).toEqual([`joined ${ours} [["t",[0,1]]] leader=true`]);

    kafka.members('g').add('stranger');
    expect(heard).toHaveLength(1);
    expect((await kafka.admin.describeGroup('g')).memberIds).toEqual([ours, 'stranger']);
    consumer.seek('t', 0, '3');
    consumer.join();
    expect(heard.at(-1)).toBe(`joined ${ours} [["t",[0,1]]] leader=true`);
    expect(consumer.seeks).toEqual([]);

    kafka.expire('g', 'stranger');
    expect([...kafka.members('g')]).toEqual([ours]);
    await consumer.stop();
    expect(kafka.allMembers()).toEqual([]);
  });

  it('without autoJoin a started consumer waits; an unanswered join is a member the engine was told of', async () => {
    const kafka = new InMemoryManualPort();
    kafka.autoJoin = false;
    kafka.addTopic('t');
    const { s, heard } = spec('g', ['t']);
    const consumer = kafka.createGroupConsumer(s);
    await consumer.start();
    expect(consumer.running).toBe(true);
    expect(kafka.members('g').size).toBe(0);
    consumer.joinUnanswered();
    expect(heard).toEqual([`joining ${consumer.memberId}`]);
    expect(kafka.members('g').has(consumer.memberId!)).toBe(true);
    await consumer.stop();
    expect(kafka.members('g').size).toBe(0);
  });

  it('a crash leaves the group unless the member lingers, until its session expires', async () => {
    const kafka = new InMemoryManualPort();
    kafka.addTopic('t');
    const first = kafka.createGroupConsumer(spec('g', ['t']).s);
    const second = kafka.createGroupConsumer(spec('g', ['t']).s);
    await Promise.all([first.start(), second.start()]);
    first.crash(new Error('fenced'), true);
    second.crash();
    await Promise.all([first.stop(), second.stop()]);
    expect([...kafka.members('g')]).toEqual([first.memberId]);
    kafka.expire('g', first.memberId!);
    expect(kafka.allMembers()).toEqual([]);
  });

  it('deliver hands the log records over, appending past its end; a describe waits for the gate', async () => {
    const kafka = new InMemoryManualPort();
    kafka.addTopic('t', ['2']);
    const { s, values } = spec('g', ['t']);
    const consumer = kafka.createGroupConsumer(s);
    await consumer.start();
    await consumer.deliver('t', 0, [1, 3]);
    expect(values).toEqual(['1:{"n":1}', '3:{"n":3}']);
    expect((await kafka.admin.latestOffsets(['t'])).get('t')).toEqual(new Map([[0, '4']]));
    kafka.addPartition('t', 7);
    expect((await kafka.admin.offsetBounds('t')).get(1)).toEqual({ low: '0', high: '7' });

    let open!: () => void;
    kafka.describeGate = new Promise<void>((resolve) => (open = resolve));
    const describing = kafka.admin.describeGroup('g');
    await vi.waitFor(() => expect(kafka.describeWaiting).toBe(1));
    open();
    expect((await describing).memberIds).toEqual([consumer.memberId]);
    await consumer.stop();
  });
});
