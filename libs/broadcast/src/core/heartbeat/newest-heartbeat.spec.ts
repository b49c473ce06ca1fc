// The start snapshot's heartbeat partitions moved back to their newest record: from the log starts
// alone (logStartOffsets where the port has it, else offsetBounds' low), and no request at all
// when the heartbeat log is empty. Proven on the real broker in
// test/engine/heartbeat-freshness.spec.ts.
import type {
  KafkaAdminPort,
  OffsetBounds,
  TopicOffsets,
} from '../../interfaces/kafka-port.interface.js';
import { NewestHeartbeat } from './newest-heartbeat.js';

const TOPIC = 'hb';
const logger = { log: () => undefined, warn: () => undefined, error: () => undefined };

function snapshot(highs: string[]): TopicOffsets {
  return new Map([
    [TOPIC, new Map(highs.map((high, partition) => [partition, high]))],
    ['data', new Map([[0, '7']])],
  ]);
}

function admin(lows: string[], withLogStart: boolean) {
  const calls: string[] = [];
  const port = {
    offsetBounds: async () => {
      calls.push('offsetBounds');
      return new Map<number, OffsetBounds>(lows.map((low, p) => [p, { low, high: '?' }]));
    },
    ...(withLogStart && {
      logStartOffsets: async () => {
        calls.push('logStartOffsets');
        return new Map(lows.map((low, p) => [p, low]));
      },
    }),
  } as unknown as KafkaAdminPort;
  return { port, calls };
}

describe('NewestHeartbeat.include', () => {
  it.each([true, false])(
    'moves each partition holding records back one, from the log starts (logStartOffsets: %s)',
    async (withLogStart) => {
      const { port, calls } = admin(['0', '5', '3'], withLogStart);
      const newest = new NewestHeartbeat(TOPIC, port, logger);
      const moved = await newest.include(snapshot(['4', '5', '9']));
      expect([...moved.get(TOPIC)!]).toEqual([
        [0, '3'],
        [1, '5'],
        [2, '8'],
      ]);
      expect(moved.get('data')).toEqual(new Map([[0, '7']]));
      expect(calls).toEqual([withLogStart ? 'logStartOffsets' : 'offsetBounds']);
      expect(newest.fromBeforeStart(0, '3')).toBe(true);
      expect(newest.fromBeforeStart(0, '3')).toBe(false);
      expect(newest.fromBeforeStart(1, '4')).toBe(false);
    },
  );

  it('asks nothing when the heartbeat log is empty', async () => {
    const { port, calls } = admin(['0', '0'], true);
    const moved = await new NewestHeartbeat(TOPIC, port, logger).include(snapshot(['0', '0']));
    expect([...moved.get(TOPIC)!]).toEqual([
      [0, '0'],
      [1, '0'],
    ]);
    expect(calls).toEqual([]);
  });

  it('leaves the snapshot as it was when the log starts cannot be read', async () => {
    const port = {
      logStartOffsets: async () => {
        throw new Error('broker gone');
      },
    } as unknown as KafkaAdminPort;
    const moved = await new NewestHeartbeat(TOPIC, port, logger).include(snapshot(['4']));
    expect(moved.get(TOPIC)).toEqual(new Map([[0, '4']]));
  });
});

describe('NewestHeartbeat.sentSinceStart', () => {
  function withLatest(lows: string[], latest: string[]) {
    const { port, calls } = admin(lows, true);
    (port as { latestOffsets?: unknown }).latestOffsets = async (topics: readonly string[]) => {
      calls.push(`latestOffsets ${topics.join(',')}`);
      return new Map([[TOPIC, new Map(latest.map((high, p) => [p, high]))]]);
    };
    return { port, calls };
  }

  it('is true once a partition grew past its high watermark in the start snapshot', async () => {
    const { port, calls } = withLatest(['0', '0'], ['4', '6']);
    const newest = new NewestHeartbeat(TOPIC, port, logger);
    // include() moved partition 1 back to its newest record (5): the start's high stays 6.
    await newest.include(snapshot(['4', '6']));
    expect(await newest.sentSinceStart()).toBe(false);
    expect(calls).toEqual(['logStartOffsets', `latestOffsets ${TOPIC}`]);
    const grown = withLatest(['0', '0'], ['4', '7']);
    const other = new NewestHeartbeat(TOPIC, grown.port, logger);
    await other.include(snapshot(['4', '6']));
    expect(await other.sentSinceStart()).toBe(true);
  });

  it('counts any record in a partition created after the snapshot, and an empty log that grew', async () => {
    const empty = withLatest(['0'], ['1']);
    const fromEmpty = new NewestHeartbeat(TOPIC, empty.port, logger);
    await fromEmpty.include(snapshot(['0']));
    expect(await fromEmpty.sentSinceStart()).toBe(true);
    const added = withLatest(['0'], ['0', '1']);
    const newPartition = new NewestHeartbeat(TOPIC, added.port, logger);
    await newPartition.include(snapshot(['0']));
    expect(await newPartition.sentSinceStart()).toBe(true);
  });

  it('asks nothing before a snapshot, or with heartbeats off', async () => {
    const { port, calls } = withLatest(['0'], ['9']);
    expect(await new NewestHeartbeat(TOPIC, port, logger).sentSinceStart()).toBe(false);
    const off = new NewestHeartbeat(undefined, port, logger);
    await off.include(snapshot(['0']));
    expect(await off.sentSinceStart()).toBe(false);
    expect(calls).toEqual([]);
  });
});
