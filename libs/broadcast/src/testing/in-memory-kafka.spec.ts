// The in-memory broker honours the KafkaPort contract the engine relies on: offsets and bounds,
// joins with assignments, seeks, ordered and awaited delivery, out-of-range recovery, groups.
import type {
  GroupConsumerListener,
  GroupConsumerSpec,
  IncomingRecord,
} from '../interfaces/kafka-port.interface.js';
import { InMemoryKafka } from './in-memory-kafka.js';

interface Seen {
  joins: { memberId: string; assignment: Map<string, number[]>; leader: boolean }[];
  records: { topic: string; partition: number; offset: string; value: string }[];
  progress: string[];
}

function consumerSpec(
  groupId: string,
  topics: string[],
  overrides: Partial<GroupConsumerSpec> = {},
): { spec: GroupConsumerSpec; seen: Seen } {
  const seen: Seen = { joins: [], records: [], progress: [] };
  const listener: GroupConsumerListener = {
    joined: (memberId, assignment, leader) =>
      seen.joins.push({
        memberId,
        assignment: new Map([...assignment].map(([t, p]) => [t, [...p]])),
        leader,
      }),
    positioned: () => undefined,
    crashed: () => undefined,
  };
  const sink = (topic: string, partition: number, record: IncomingRecord) =>
    void seen.records.push({
      topic,
      partition,
      offset: record.offset,
      value: record.value!.toString(),
    });
  return {
    seen,
    spec: {
      groupId,
      topics,
      fromBeginning: false,
      sink,
      listener,
      progress: (topic, partition, next) =>
        void seen.progress.push(`${topic}:${partition}@${next}`),
      ...overrides,
    },
  };
}

const value = (n: number) => ({ key: null, value: JSON.stringify({ n }) });

describe('InMemoryKafka', () => {
  it('appends with increasing offsets and reports watermarks, bounds and offsets by time', async () => {
    const broker = new InMemoryKafka({ partitions: 2 });
    const { admin } = broker.port();
    await admin.ensureTopics(['t']);
    const port = broker.port();
    await port.send('t', [value(0), value(1)]);
    await port.send('t', [{ key: 'k', value: '{}' }]);

    const latest = await admin.latestOffsets(['t', 'missing']);
    const keyed = [...latest.get('t')!.entries()].find(([, high]) => high === '1')![0];
    expect(latest.get('t')!.get(keyed === 0 ? 1 : 0)).toBe(keyed === 0 ? '0' : '2');
    expect(latest.get('missing')).toEqual(new Map());
    broker.truncate('t', 0, 1);
    expect((await admin.offsetBounds('t')).get(0)!.low).toBe(keyed === 0 ? '0' : '1');
    const future = await admin.offsetsForTimestamp('t', Date.now() + 60_000);
    expect(future).toEqual(await admin.latestOffsets(['t']).then((o) => o.get('t')));
    expect((await admin.offsetsForTimestamp('t', 0)).get(1)).toBe('0');
  });

  it('joins, assigns every partition, and hands appended records to the sink in order', async () => {
    const broker = new InMemoryKafka({ partitions: 2 });
    const port = broker.port();
    await port.admin.ensureTopics(['t']);
    const { spec, seen } = consumerSpec('g-1', ['t']);
    const consumer = port.createGroupConsumer(spec);
    await consumer.start();
    await vi.waitFor(() => expect(seen.joins).toHaveLength(1));
    expect(seen.joins[0]!.assignment).toEqual(new Map([['t', [0, 1]]]));
    expect(seen.joins[0]!.leader).toBe(true);

    await port.send('t', [value(1), value(2), value(3)]);
    await broker.settled();
    expect(seen.records.map((r) => `${r.partition}@${r.offset}:${r.value}`)).toEqual([
      '0@0:{"n":1}',
      '0@1:{"n":2}',
      '0@2:{"n":3}',
    ]);
    expect(seen.progress).toEqual(['t:0@1', 't:0@2', 't:0@3']);
    expect((await port.admin.describeGroup('g-1')).memberIds).toEqual([seen.joins[0]!.memberId]);
    await consumer.stop();
    expect(await port.admin.describeGroup('g-1')).toEqual({ state: 'Empty', memberIds: [] });
    expect(await port.admin.deleteGroup('g-1', Date.now() + 1_000)).toBe('deleted');
    expect(await port.admin.deleteGroup('g-1', Date.now() + 1_000)).toBe('not-found');
  });

  it('awaits each sink call before the next record', async () => {
    const broker = new InMemoryKafka();
    const port = broker.port();
    await port.admin.ensureTopics(['t']);
    const order: string[] = [];
    const { spec } = consumerSpec('g-1', ['t'], {
      sink: async (_t, _p, record) => {
        order.push(`start ${record.offset}`);
        await new Promise((resolve) => setImmediate(resolve));
        order.push(`end ${record.offset}`);
      },
    });
    const consumer = port.createGroupConsumer(spec);
    await consumer.start();
    // Settled also means joined: the consumer reads from the end, so it must have joined first.
    await broker.settled();
    await port.send('t', [value(0), value(1)]);
    await broker.settled();
    expect(order).toEqual(['start 0', 'end 0', 'start 1', 'end 1']);
    await consumer.stop();
  });

  it('reads from a sought offset, and from the log start with fromBeginning', async () => {
    const broker = new InMemoryKafka();
    const port = broker.port();
    await port.send('t', [value(0), value(1), value(2)]);
    const sought = consumerSpec('g-1', ['t'], {
      listener: {
        joined: () => consumer.seek('t', 0, '1'),
        positioned: () => undefined,
        crashed: () => undefined,
      },
    });
    const consumer = port.createGroupConsumer(sought.spec);
    const early = consumerSpec('g-2', ['t'], { fromBeginning: true });
    const beginning = port.createGroupConsumer(early.spec);
    const latest = consumerSpec('g-3', ['t']);
    const fromEnd = port.createGroupConsumer(latest.spec);
    await Promise.all([consumer.start(), beginning.start(), fromEnd.start()]);
    await broker.settled();
    expect(sought.seen.records.map((r) => r.offset)).toEqual(['1', '2']);
    expect(early.seen.records.map((r) => r.offset)).toEqual(['0', '1', '2']);
    expect(latest.seen.records).toEqual([]);
    await Promise.all([consumer.stop(), beginning.stop(), fromEnd.stop()]);
  });

  it('asks outOfRange where a position the log no longer holds continues', async () => {
    const broker = new InMemoryKafka();
    const port = broker.port();
    await port.send('t', [value(0), value(1), value(2), value(3)]);
    broker.truncate('t', 0, 2);
    const asked: string[] = [];
    let consumer!: ReturnType<typeof port.createGroupConsumer>;
    const { spec, seen } = consumerSpec('g-1', ['t'], {
      listener: {
        joined: () => consumer.seek('t', 0, '0'),
        positioned: () => undefined,
        crashed: () => undefined,
      },
      outOfRange: async (topic, partition) => {
        asked.push(`${topic}:${partition}`);
        return '3';
      },
    });
    consumer = port.createGroupConsumer(spec);
    await consumer.start();
    await broker.settled();
    expect(asked).toEqual(['t:0']);
    expect(seen.records.map((r) => r.offset)).toEqual(['3']);
    await consumer.stop();
  });

  it('shares a group out among its members, the longest-standing one leading, and lists them', async () => {
    const broker = new InMemoryKafka({ partitions: 2 });
    const a = broker.port();
    const b = broker.port();
    await a.admin.ensureTopics(['t']);
    const first = consumerSpec('pool-1', ['t'], { userData: 'instance-a' });
    const second = consumerSpec('pool-1', ['t']);
    const c1 = a.createGroupConsumer(first.spec);
    await c1.start();
    await vi.waitFor(() => expect(first.seen.joins).toHaveLength(1));
    const c2 = b.createGroupConsumer(second.spec);
    await c2.start();
    await vi.waitFor(() => expect(second.seen.joins).toHaveLength(1));
    expect(first.seen.joins.at(-1)).toMatchObject({
      assignment: new Map([['t', [0]]]),
      leader: true,
    });
    expect(second.seen.joins.at(-1)).toMatchObject({
      assignment: new Map([['t', [1]]]),
      leader: false,
    });
    expect(await a.admin.deleteGroup('pool-1', Date.now() + 1_000)).toBe('non-empty');
    const members = await a.admin.liveMembers('pool');
    expect(members.map((m) => [m.groupId, m.topics, m.userData])).toEqual([
      ['pool-1', ['t'], 'instance-a'],
      ['pool-1', ['t'], undefined],
    ]);

    await c1.stop();
    expect(second.seen.joins.at(-1)).toMatchObject({
      assignment: new Map([['t', [0, 1]]]),
      leader: true,
    });
    await b.disconnect();
    expect(await a.admin.describeGroup('pool-1')).toEqual({ state: 'Empty', memberIds: [] });
  });

  it('honours a seek made while a record is in the sink: the next record comes from there', async () => {
    const broker = new InMemoryKafka();
    const port = broker.port();
    await port.admin.ensureTopics(['t']);
    const offsets: string[] = [];
    let consumer!: ReturnType<typeof port.createGroupConsumer>;
    const { spec } = consumerSpec('g-1', ['t'], {
      sink: (_t, _p, record) => {
        offsets.push(record.offset);
        // As the engine does when it refuses a record: the position goes back to this offset.
        if (offsets.length === 2) consumer.seek('t', 0, '0');
      },
    });
    consumer = port.createGroupConsumer(spec);
    await consumer.start();
    await broker.settled();
    await port.send('t', [value(0), value(1), value(2)]);
    await broker.settled();
    expect(offsets).toEqual(['0', '1', '0', '1', '2']);
    await consumer.stop();
  });

  it('a sink that throws crashes the consumer: the listener hears it and the member leaves', async () => {
    const broker = new InMemoryKafka();
    const port = broker.port();
    await port.admin.ensureTopics(['t']);
    const crashes: string[] = [];
    const { spec } = consumerSpec('g-1', ['t'], {
      sink: () => {
        throw new Error('sink failed');
      },
      listener: {
        joined: () => undefined,
        positioned: () => undefined,
        crashed: (error) => void crashes.push(error.message),
      },
    });
    const consumer = port.createGroupConsumer(spec);
    await consumer.start();
    await broker.settled();
    await port.send('t', [value(0)]);
    await broker.settled();
    expect(crashes).toEqual(['sink failed']);
    expect(broker.members('g-1')).toEqual([]);
    await consumer.stop();
  });

  it('stops during start without ever joining', async () => {
    const broker = new InMemoryKafka();
    const port = broker.port();
    const { spec, seen } = consumerSpec('g-1', ['t']);
    const consumer = port.createGroupConsumer(spec);
    const starting = consumer.start();
    await consumer.stop();
    await starting;
    await broker.settled();
    expect(seen.joins).toEqual([]);
    expect(broker.members('g-1')).toBeUndefined();
  });
});
