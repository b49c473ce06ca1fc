import type { Kafka } from 'kafkajs';

const CREATE_CLUSTER = 'private:Kafka:createCluster';

/**
 * Makes a kafkajs client (`kafka.admin()`, `kafka.consumer()`) and keeps the internal Cluster
 * kafkajs 2.2.4 creates for it (src/index.js: every admin, consumer and producer gets its own,
 * through the private factory `private:Kafka:createCluster`, synchronously inside the call). The
 * factory is swapped only around that one call, so no other client's Cluster is caught. Another
 * kafkajs without that factory gives the client alone (cluster undefined).
 *
 * One of the kafkajs internals the adapter still uses, for the offsets snapshot and the
 * out-of-range hook: why each is kept is in ./README.md and libs/broadcast/docs/RELIABILITY.md.
 */
export function withOwnCluster<T>(kafka: Kafka, make: () => T): { client: T; cluster: unknown } {
  const { holder, key, create } = clusterFactory(kafka);
  if (!key || !create) return { client: make(), cluster: undefined };
  let made: unknown;
  holder[key] = (options: unknown) => (made = create(options));
  try {
    return { client: make(), cluster: made };
  } finally {
    holder[key] = create;
  }
}

/**
 * Calls `prepare` with every Cluster the client makes from now on (for each admin, consumer and
 * producer), before the client uses it. Returns false, doing nothing, on a kafkajs without the
 * private factory.
 */
export function onEveryCluster(kafka: Kafka, prepare: (cluster: unknown) => void): boolean {
  const { holder, key, create } = clusterFactory(kafka);
  if (!key || !create) return false;
  holder[key] = (options: unknown) => {
    const cluster = create(options);
    prepare(cluster);
    return cluster;
  };
  return true;
}

function clusterFactory(kafka: Kafka): {
  holder: Record<symbol, unknown>;
  key: symbol | undefined;
  create: ((options: unknown) => unknown) | undefined;
} {
  const holder = kafka as unknown as Record<symbol, unknown>;
  const key = Object.getOwnPropertySymbols(kafka).find((s) => s.description === CREATE_CLUSTER);
  const create = key && holder[key];
  return {
    holder,
    key,
    create: typeof create === 'function' ? (create as (options: unknown) => unknown) : undefined,
  };
}

/** What cutRequests needs of kafkajs 2.2.4's Connection and its RequestQueue. */
interface ConnectionInternals {
  rejectRequests?(error: Error): void;
  requestQueue?: { emit?(event: string): void };
  connect?: unknown;
  send?: unknown;
}

/** What cutRequests needs of kafkajs 2.2.4's Cluster, BrokerPool and Broker. */
interface ClusterInternals {
  connectionPoolBuilder?: { build?: unknown };
  brokerPool?: {
    seedBroker?: { connectionPool?: { pool?: ConnectionInternals[] } };
    brokers?: Record<string, { connectionPool?: { pool?: ConnectionInternals[] } }>;
  };
}

/**
 * Ends a client's own Cluster for good, now (kafkajs 2.2.4 internals: the Cluster's
 * connectionPoolBuilder, its BrokerPool's seed broker and brokers, each Broker's ConnectionPool,
 * each Connection): every request in flight or queued rejects with `error`, which kafkajs's
 * retriers do not retry when it says `retriable: false`, and so does every request and connect
 * after it, so that no request waits for an answer and no socket opens again. Each queue then says
 * it is empty ('requestQueueEmpty', which kafkajs's `rejectAll` does not emit), so a
 * `disconnect()` waiting for the requests in flight (up to the request timeout against a broker
 * that stopped answering) closes the sockets at once. Only for a client that is being closed.
 * Returns false, doing nothing, on a kafkajs whose internals differ.
 */
export function cutRequests(cluster: unknown, error: Error): boolean {
  const { brokerPool: pool, connectionPoolBuilder: builder } = (cluster ?? {}) as ClusterInternals;
  if (!pool) return false;
  const refuse = () => Promise.reject(error);
  if (builder) builder.build = refuse;
  for (const broker of [pool.seedBroker, ...Object.values(pool.brokers ?? {})]) {
    for (const connection of broker?.connectionPool?.pool ?? []) {
      if (!connection) continue;
      connection.connect = refuse;
      connection.send = refuse;
      connection.rejectRequests?.(error);
      connection.requestQueue?.emit?.('requestQueueEmpty');
    }
  }
  return true;
}

/** An error kafkajs's retriers give up on at once (`retriable: false`). */
export function notRetriable(error: Error): Error {
  return Object.assign(error, { retriable: false });
}
