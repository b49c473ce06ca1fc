// The request queues of a kafkajs client made by createKafkajsClient, on the real kafkajs (its
// ConnectionPool and RequestQueue objects; no connection is made).
import kafkajs from 'kafkajs';
import { createKafkajsClient } from './kafkajs-client.js';
import { withOwnCluster } from './kafkajs-own-cluster.js';
import { scheduleOnlyWhenWaiting } from './kafkajs-request-queues.js';

interface Queue {
  pending: unknown[];
  throttleCheckTimeoutId: unknown;
  checkPendingRequests(): void;
  maybeThrottle(ms: number): void;
  destroy(): void;
}

/** The RequestQueue of the first connection of a pool that `kafka`'s next admin builds. */
async function firstQueue(kafka: kafkajs.Kafka): Promise<Queue> {
  const { cluster } = withOwnCluster(kafka, () => kafka.admin());
  const builder = (cluster as { connectionPoolBuilder: { build(): Promise<unknown> } })
    .connectionPoolBuilder;
  const pool = (await builder.build()) as { pool: { requestQueue: Queue }[] };
  return pool.pool[0]!.requestQueue;
}

const options = { brokers: ['127.0.0.1:1'], logLevel: kafkajs.logLevel.NOTHING };

describe('checkRequestQueuesOnlyWhenWaiting', () => {
  it('with nothing waiting, checking the queue arms no timer (kafkajs arms one of minus the clock)', async () => {
    const plain = await firstQueue(new kafkajs.Kafka(options));
    plain.checkPendingRequests();
    // What kafkajs 2.2.4 does by itself: a timer, re-armed every millisecond.
    expect(plain.throttleCheckTimeoutId).not.toBeNull();
    plain.destroy();

    const queue = await firstQueue(createKafkajsClient(options));
    queue.checkPendingRequests();
    expect(queue.throttleCheckTimeoutId).toBeNull();
  });

  it('a request held by a broker throttle still gets its check scheduled', async () => {
    const queue = await firstQueue(createKafkajsClient(options));
    queue.maybeThrottle(60_000);
    queue.pending.push({});
    queue.checkPendingRequests();
    expect(queue.throttleCheckTimeoutId).not.toBeNull();
    queue.pending.length = 0;
    queue.destroy();
  });

  it('leaves what is not a kafkajs RequestQueue alone', () => {
    expect(scheduleOnlyWhenWaiting(undefined)).toBe(false);
    expect(scheduleOnlyWhenWaiting({ pending: [] })).toBe(false);
  });
});
