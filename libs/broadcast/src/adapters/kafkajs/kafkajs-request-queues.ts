import type { Kafka } from 'kafkajs';
import { onEveryCluster } from './kafkajs-own-cluster.js';

/**
 * Stops kafkajs 2.2.4 from polling empty request queues, on every connection of `kafka`'s
 * clients.
 *
 * Each kafkajs Connection has a RequestQueue (network/requestQueue/index.js). Whenever it checks
 * its queue (after every response) `scheduleCheckPendingRequests` arms a timer of
 * `throttledUntil − Date.now()` ms, whether a request waits or not, and the timer checks again
 * and re-arms. Unthrottled, `throttledUntil` is -1, so the delay is minus the clock: Node clamps
 * it to 1 ms, and a connection polls its empty queue for as long as it lives (about 700 times a
 * second, idle, measured on one connection). Node 24 also warns about the negative delay,
 * `TimeoutNegativeWarning` (once per process, on stderr; tulios/kafkajs#1751), which is what the
 * CLI printed before its one error line.
 *
 * A request waits in that queue only while `maxInFlightRequests` or a broker's throttle holds it,
 * and `push` arms the check itself then; with nothing waiting there is nothing to check. So the
 * check is scheduled only when something waits, and kafkajs's own code schedules it then (its
 * delay is then the throttle's rest or its 10 ms interval, never negative).
 *
 * The hook sits on the Clusters of this one Kafka instance (kafkajs-own-cluster.ts): every
 * ConnectionPool their builder makes has its connections' queues adjusted, no kafkajs prototype
 * is touched. Returns false, doing nothing, on a kafkajs whose internals differ.
 */
export function checkRequestQueuesOnlyWhenWaiting(kafka: Kafka): boolean {
  return onEveryCluster(kafka, (cluster) => {
    const builder = (cluster as { connectionPoolBuilder?: PoolBuilder } | undefined)
      ?.connectionPoolBuilder;
    if (typeof builder?.build !== 'function') return;
    const build = builder.build;
    builder.build = async function (this: unknown, ...args: unknown[]) {
      const pool = await build.apply(this, args);
      for (const connection of Array.isArray(pool?.pool) ? pool.pool : []) {
        scheduleOnlyWhenWaiting(connection?.requestQueue);
      }
      return pool;
    };
  });
}

/** What the hook needs of kafkajs's connectionPoolBuilder, ConnectionPool and RequestQueue. */
interface PoolBuilder {
  build(...args: unknown[]): Promise<{ pool?: { requestQueue?: unknown }[] } | undefined>;
}

interface RequestQueue {
  pending: unknown[];
  scheduleCheckPendingRequests(): void;
}

/** Adjusts one RequestQueue (see checkRequestQueuesOnlyWhenWaiting). */
export function scheduleOnlyWhenWaiting(queue: unknown): boolean {
  if (!isRequestQueue(queue)) return false;
  const schedule = queue.scheduleCheckPendingRequests;
  queue.scheduleCheckPendingRequests = function (this: RequestQueue) {
    if (this.pending.length > 0) schedule.call(this);
  };
  return true;
}

function isRequestQueue(value: unknown): value is RequestQueue {
  const q = value as Partial<RequestQueue> | undefined;
  return Array.isArray(q?.pending) && typeof q?.scheduleCheckPendingRequests === 'function';
}
