// The out-of-range hook on a consumer's own kafkajs Cluster: over a scripted Cluster and Broker,
// and found on the real kafkajs (no connection is made). Proven on the real broker, through a
// proxy answering a Fetch with OFFSET_OUT_OF_RANGE, in test/faults/offset-out-of-range.spec.ts.
import kafkajs from 'kafkajs';
import { interceptOutOfRange } from './kafkajs-out-of-range.js';
import { withOwnCluster } from './kafkajs-own-cluster.js';

const outOfRange = (topic: string, partition: number) =>
  Object.assign(new Error('The requested offset is not within the range'), {
    name: 'KafkaJSOffsetOutOfRange',
    type: 'OFFSET_OUT_OF_RANGE',
    topic,
    partition,
  });

function scripted(answers: (() => unknown)[]) {
  const broker = { fetch: async () => answers.shift()!() };
  const cluster = { findBroker: async () => broker };
  const resolved: string[] = [];
  return { broker, cluster, resolved };
}

describe('interceptOutOfRange', () => {
  it('answers OFFSET_OUT_OF_RANGE itself: the resolver decides, the fetch reads as empty', async () => {
    const { cluster, resolved } = scripted([
      () => Promise.reject(outOfRange('t', 3)),
      () => ({ responses: ['data'] }),
    ]);
    expect(interceptOutOfRange(cluster, async (t, p) => void resolved.push(`${t}[${p}]`))).toBe(
      true,
    );
    const broker = await cluster.findBroker();
    expect(await broker.fetch()).toEqual({ responses: [] });
    expect(resolved).toEqual(['t[3]']);
    expect(await broker.fetch()).toEqual({ responses: ['data'] });
  });

  it('passes every other error on unchanged, and wraps each broker once', async () => {
    const other = Object.assign(new Error('not leader'), { type: 'NOT_LEADER_FOR_PARTITION' });
    const { cluster, resolved } = scripted([() => Promise.reject(other)]);
    interceptOutOfRange(cluster, async () => void resolved.push('asked'));
    const broker = await cluster.findBroker();
    const wrappedFetch = broker.fetch;
    expect(await cluster.findBroker()).toBe(broker);
    expect(broker.fetch).toBe(wrappedFetch);
    await expect(broker.fetch()).rejects.toBe(other);
    expect(resolved).toEqual([]);
  });

  it('a failed decision becomes an ordinary error, never the out-of-range one kafkajs would commit for', async () => {
    const { cluster } = scripted([() => Promise.reject(outOfRange('t', 0))]);
    interceptOutOfRange(cluster, async () => {
      throw new Error('admin unreachable');
    });
    const failure = await (await cluster.findBroker()).fetch().catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).name).toBe('Error');
    expect((failure as Error).message).toMatch(
      /t\[0\] continues after OFFSET_OUT_OF_RANGE: admin unreachable/,
    );
  });

  it("finds a real kafkajs consumer's own Cluster, and leaves another consumer's alone", () => {
    const kafka = new kafkajs.Kafka({
      brokers: ['127.0.0.1:1'],
      logLevel: kafkajs.logLevel.NOTHING,
    });
    const own = withOwnCluster(kafka, () => kafka.consumer({ groupId: 'g' }));
    const other = withOwnCluster(kafka, () => kafka.consumer({ groupId: 'h' }));
    const before = (other.cluster as { findBroker: unknown }).findBroker;
    expect(interceptOutOfRange(own.cluster, async () => undefined)).toBe(true);
    expect(Object.hasOwn(own.cluster as object, 'findBroker')).toBe(true);
    expect((other.cluster as { findBroker: unknown }).findBroker).toBe(before);
    expect(Object.hasOwn(other.cluster as object, 'findBroker')).toBe(false);
  });

  it('without a Cluster (another kafkajs) it says so', () => {
    expect(interceptOutOfRange(undefined, async () => undefined)).toBe(false);
  });
});
