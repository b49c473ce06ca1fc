/**
 * The KafkaPort conformance suite: each fact the engine relies on from its Kafka client, one
 * test per fact, run over every implementation of the port — the in-memory broker, kafkajs, and
 * @platformatic/kafka on the classic and the KIP-848 protocol (the last three on the real
 * broker). libs/broadcast/docs/PORT-CONTRACT.md lists each fact with its test here.
 */
import { BroadcastMessages } from '../../libs/broadcast/src/errors/broadcast.messages.js';
import { logStartOffsets } from '../../libs/broadcast/src/shared/log-start-offsets.js';
import { waitFor } from '../support/broker/kafka.js';
import { runId } from '../support/broker/run-id.js';
import { heardMember, pausedTopic, staysFalse } from '../support/port-conformance/heard-member.js';
import { PORT_ROWS, type PortRow } from '../support/port-conformance/port-rows.js';

describe.each(PORT_ROWS)('KafkaPort conformance: %s', (rowName, makeRow) => {
  let row: PortRow;
  let n = 0;
  /** A topic and group of their own for each test. */
  function names(fact: string) {
    const base = `bt.${runId()}.port-${rowName.replace(/[^a-z0-9]+/gi, '-')}-${fact}-${++n}`;
    return { topic: `${base}.t`, groupId: `${base}.g` };
  }

  beforeAll(async () => {
    row = makeRow();
    await row.ready();
  });

  afterAll(async () => {
    await row?.close();
  });

  it('a seek stays local and nothing commits: reading starts at the sought offset, the group has no committed offset', async () => {
    const { topic, groupId } = names('seek');
    await row.createTopic(topic);
    await row.produce(topic, ['v0', 'v1', 'v2', 'v3']);
    const m = heardMember(row.port('seek'), groupId, topic, { seekTo: '2' });
    try {
      await m.consumer.start();
      await waitFor(() => m.values().includes('v3'), { message: `heard ${m.values()}` });
      expect(m.values()).toEqual(['v2', 'v3']);
      await m.consumer.stop();
      expect(await row.committed(groupId, topic)).toEqual(['-1']);
    } finally {
      await m.consumer.stop();
    }
  });

  it('a paused topic is not fetched; resumed, reading goes on from where it stopped, nothing skipped or committed', async () => {
    const { topic, groupId } = names('pause');
    await row.createTopic(topic);
    await row.produce(topic, ['v0', 'v1']);
    const pauses = pausedTopic(topic);
    const m = heardMember(row.port('pause'), groupId, topic, { seekTo: '0', pauses });
    try {
      await m.consumer.start();
      await waitFor(() => m.joins().length > 0, { message: 'no join' });
      expect(await staysFalse(() => m.values().length > 0, 1_500)).toBe(true);
      await row.produce(topic, ['v2']);
      pauses.resume();
      await waitFor(() => m.values().includes('v2'), { message: `heard ${m.values()}` });
      expect(m.values()).toEqual(['v0', 'v1', 'v2']);
      await m.consumer.stop();
      expect(await row.committed(groupId, topic)).toEqual(['-1']);
    } finally {
      await m.consumer.stop();
    }
  });

  it('out of range is asked of the engine, never resolved by the client: reading goes on where the answer says, nothing committed', async () => {
    const { topic, groupId } = names('oor');
    await row.createTopic(topic);
    await row.produce(topic, ['v0', 'v1', 'v2']);
    // Past the high watermark: the broker answers OFFSET_OUT_OF_RANGE.
    const m = heardMember(row.port('oor'), groupId, topic, { seekTo: '100', resumeAt: '1' });
    try {
      await m.consumer.start();
      await waitFor(() => m.values().includes('v2'), { message: `heard ${m.values()}` });
      expect(m.heard.filter((h) => h.kind === 'outOfRange')).toEqual([
        { kind: 'outOfRange', partition: 0 },
      ]);
      // Neither the earliest (v0) nor the latest offset: the engine's answer.
      expect(m.values()).toEqual(['v1', 'v2']);
      await m.consumer.stop();
      expect(await row.committed(groupId, topic)).toEqual(['-1']);
    } finally {
      await m.consumer.stop();
    }
  });

  it('progress counts the records the client filtered: transaction markers and aborted records move it to the high watermark', async () => {
    const { topic, groupId } = names('progress');
    await row.createTopic(topic);
    // Offsets 0 'a', 1 its commit marker, 2 an aborted record, 3 the abort marker.
    await row.produceFiltered(topic, 'a');
    const m = heardMember(row.port('progress'), groupId, topic, { seekTo: '0' });
    try {
      await m.consumer.start();
      await waitFor(() => m.progress().includes('4'), {
        timeoutMs: 20_000,
        message: `progress ${m.progress()}, records ${m.values()}`,
      });
      expect(m.values()).toEqual(['a']);
    } finally {
      await m.consumer.stop();
    }
  });

  it('every membership change reaches the engine, a new generation or epoch with the same partitions included', async () => {
    const { topic, groupId } = names('membership');
    await row.createTopic(topic);
    const a = heardMember(row.port('membership-a'), groupId, topic);
    const b = heardMember(row.port('membership-b'), groupId, topic);
    try {
      await a.consumer.start();
      // A KIP-848 member may hear its first epoch before the broker has assigned it anything.
      await waitFor(() => a.joins().some((j) => j.partitions.length > 0), {
        message: `A never got the partition: ${JSON.stringify(a.joins())}`,
      });
      const first = a.joins().find((j) => j.partitions.length > 0)!;
      expect(first.partitions).toEqual([0]);
      const heardAlone = a.joins().length;
      // Another member joins: A hears it, whatever partitions it keeps.
      await b.consumer.start();
      await waitFor(() => b.joins().length > 0, { message: 'B never joined' });
      await waitFor(() => a.joins().length > heardAlone, { message: 'A never heard B join' });
      const heardBefore = a.joins().length;
      // ... and leaves: A hears that too, alone again with the one partition.
      await b.consumer.stop();
      await waitFor(
        () => a.joins().length > heardBefore && a.joins().at(-1)!.partitions.length > 0,
        {
          timeoutMs: 20_000,
          message: `A heard ${JSON.stringify(a.joins())}, nothing after B left`,
        },
      );
      expect(a.joins().at(-1)).toEqual({
        kind: 'joined',
        memberId: first.memberId,
        partitions: [0],
      });
      expect(a.crashes()).toEqual([]);
    } finally {
      await Promise.all([a.consumer.stop(), b.consumer.stop()]);
    }
  });

  it('a fence (the coordinator removed the member, as when its session expires) is reported, and nothing reaches the sink under the removed member', async () => {
    const { topic, groupId } = names('fence');
    await row.createTopic(topic);
    const m = heardMember(row.port('fence'), groupId, topic);
    try {
      await m.consumer.start();
      await waitFor(() => m.joins().some((j) => j.partitions.length > 0), {
        message: 'never joined',
      });
      const memberId = m.joins()[0]!.memberId;
      await row.produce(topic, ['before']);
      await waitFor(() => m.values().includes('before'), { message: "'before' not received" });

      await row.fence(groupId, memberId);
      // Reported: the consumer crashed, or it joined again as a new member (positions re-sought).
      const report = await waitFor(
        () =>
          m.heard.find(
            (h) => h.kind === 'crashed' || (h.kind === 'joined' && h.memberId !== memberId),
          ),
        { timeoutMs: 20_000, message: `the fence was not reported: ${JSON.stringify(m.heard)}` },
      );
      await row.produce(topic, ['after']);
      if (report.kind === 'crashed') {
        // A crashed consumer hands nothing over any more.
        expect(await staysFalse(() => m.values().includes('after'), 1_500)).toBe(true);
      } else {
        const at = m.heard.indexOf(report);
        const afterAt = m.heard.findIndex((h) => h.kind === 'record' && h.value === 'after');
        expect(afterAt === -1 || afterAt > at).toBe(true);
      }
    } finally {
      await m.consumer.stop();
    }
  });

  it.each([
    ['while start() runs', 'start'],
    ['right after start() resolved, the join not answered yet', 'started'],
    ['once joined', 'joined'],
  ])('stop at any moment leaves no member: %s', async (_moment, when) => {
    const { topic, groupId } = names(`stop-${when}`);
    await row.createTopic(topic);
    const m = heardMember(row.port(`stop-${when}`), groupId, topic);
    const starting = m.consumer.start();
    if (when !== 'start') await starting;
    if (when === 'joined') await waitFor(() => m.joins().length > 0, { message: 'never joined' });
    await m.consumer.stop();
    await starting.catch(() => undefined);
    expect(await row.members(groupId)).toEqual([]);
    // A join the broker answers late must not bring the member back.
    expect(await staysFalse(async () => (await row.members(groupId)).length > 0, 1_000)).toBe(true);
  });

  it('the log starts alone (logStartOffsets, where the port has it) are the lows of offsetBounds', async () => {
    const { topic } = names('logstart');
    await row.createTopic(topic);
    await row.produce(topic, ['v0', 'v1']);
    const port = row.port('logstart');
    try {
      // The start's order: the snapshot's highs first (kafkajs then reuses that metadata).
      expect(await port.admin.latestOffsets([topic])).toEqual(
        new Map([[topic, new Map([[0, '2']])]]),
      );
      const lows = await logStartOffsets(port.admin, topic);
      const bounds = await port.admin.offsetBounds(topic);
      expect([...lows]).toEqual([...bounds].map(([partition, { low }]) => [partition, low]));
      expect(bounds.get(0)).toEqual({ low: '0', high: '2' });
    } finally {
      await port.disconnect();
    }
  });

  it('after disconnect() every call is refused the same way, and nothing is sent', async () => {
    const { topic, groupId } = names('closed');
    await row.createTopic(topic);
    const port = row.port('closed');
    await port.send(topic, [{ key: null, value: 'before' }]);
    // Made before the disconnect, started after it.
    const made = heardMember(port, groupId, topic);
    await port.disconnect();
    const answer = (call: () => Promise<unknown>) =>
      Promise.resolve()
        .then(call)
        .then(
          () => 'resolved',
          (error: unknown) => (error instanceof Error ? error.message : String(error)),
        );
    const calls: Record<string, () => Promise<unknown>> = {
      send: () => port.send(topic, [{ key: null, value: 'after' }]),
      'consumer start': () => made.consumer.start(),
      ensureTopics: () => port.admin.ensureTopics([topic]),
      deleteGroup: () => port.admin.deleteGroup(groupId, Date.now() + 1_000),
      describeGroup: () => port.admin.describeGroup(groupId),
      latestOffsets: () => port.admin.latestOffsets([topic]),
      offsetBounds: () => port.admin.offsetBounds(topic),
      offsetsForTimestamp: () => port.admin.offsetsForTimestamp(topic, 0),
      liveMembers: () => port.admin.liveMembers(groupId),
      occupiedGroups: () => port.admin.occupiedGroups(groupId),
      createGroupConsumer: async () =>
        port.createGroupConsumer({ ...made.spec, groupId: `${groupId}-2` }),
      'a second disconnect': () => port.disconnect(),
    };
    const answers = Object.fromEntries(
      await Promise.all(
        Object.entries(calls).map(async ([name, call]) => [name, await answer(call)] as const),
      ),
    );
    const closed = BroadcastMessages.kafkaClientClosed();
    expect(answers).toEqual({
      ...Object.fromEntries(Object.keys(calls).map((name) => [name, closed])),
      'a second disconnect': 'resolved',
    });
    expect(made.heard).toEqual([]);
    expect(await row.high(topic)).toBe(1);
  });
});
