import { errorMessage } from '../../shared/async.utils.js';

/**
 * Keeps kafkajs 2.2.4 from recovering OFFSET_OUT_OF_RANGE by itself. Its recovery commits: the
 * fetch response's parser throws KafkaJSOffsetOutOfRange (protocol/requests/fetch/v0/response.js
 * `parse`, for the first failed partition; the whole response is dropped), ConsumerGroup.fetch
 * catches it (consumerGroup.js `recoverFromFetch`) and `recoverFromOffsetOutOfRange` calls
 * OffsetManager.setDefaultOffset, which sends an OffsetCommit of the reset policy's offset
 * (-2, earliest, for `fromBeginning`) whatever `autoCommit` says, then forgets the partition's
 * offsets so that the next fetch resolves the committed one: the whole partition again.
 *
 * The hook sits on the one consumer's own Cluster (see kafkajs-own-cluster.ts), not on kafkajs's
 * prototypes, so no other kafkajs consumer in the process is touched: each Broker that Cluster
 * hands out gets its fetch wrapped, and an out-of-range error is answered here, before
 * ConsumerGroup sees it. ConsumerGroup.fetch then reads an empty response: nothing is handed
 * over, nothing resolved, nothing committed. `resolve` decides where the partition continues and
 * seeks it (applied by the next fetch, locally, with auto-commit off).
 *
 * A failed `resolve` throws an ordinary error instead: kafkajs retries the fetch (which asks
 * again) and, past its retries, crashes the consumer for the engine to rejoin.
 */
export function interceptOutOfRange(
  cluster: unknown,
  resolve: (topic: string, partition: number) => Promise<void>,
): boolean {
  if (!isFetchingCluster(cluster)) return false;
  const findBroker = cluster.findBroker;
  const wrapped = new WeakSet<object>();
  cluster.findBroker = async function (this: unknown, ...args: unknown[]) {
    const broker = await findBroker.apply(this, args);
    if (isFetchingBroker(broker) && !wrapped.has(broker)) {
      wrapped.add(broker);
      wrapFetch(broker, resolve);
    }
    return broker;
  };
  return true;
}

/** What the hook needs of kafkajs's Cluster and Broker (src/cluster/index.js, src/broker/index.js). */
interface FetchingCluster {
  findBroker(...args: unknown[]): Promise<unknown>;
}

interface FetchingBroker {
  fetch(...args: unknown[]): Promise<unknown>;
}

function wrapFetch(
  broker: FetchingBroker,
  resolve: (topic: string, partition: number) => Promise<void>,
): void {
  const fetch = broker.fetch;
  broker.fetch = async function (this: unknown, ...args: unknown[]) {
    try {
      return await fetch.apply(this, args);
    } catch (error) {
      const at = outOfRange(error);
      if (!at) throw error;
      try {
        await resolve(at.topic, at.partition);
      } catch (failure) {
        throw new Error(
          `Could not decide where ${at.topic}[${at.partition}] continues after OFFSET_OUT_OF_RANGE: ${errorMessage(failure)}`,
          { cause: failure },
        );
      }
      // ConsumerGroup.fetch reads `responses` only: no batch, so the fetch loop simply goes on.
      return { responses: [] };
    }
  };
}

/** The partition of a KafkaJSOffsetOutOfRange (src/errors.js), if `error` is one. */
function outOfRange(error: unknown): { topic: string; partition: number } | undefined {
  const e = error as { name?: unknown; topic?: unknown; partition?: unknown } | undefined;
  if (e?.name !== 'KafkaJSOffsetOutOfRange') return undefined;
  if (typeof e.topic !== 'string' || typeof e.partition !== 'number') return undefined;
  return { topic: e.topic, partition: e.partition };
}

function isFetchingCluster(value: unknown): value is FetchingCluster {
  return typeof (value as Partial<FetchingCluster> | undefined)?.findBroker === 'function';
}

function isFetchingBroker(value: unknown): value is FetchingBroker {
  return typeof (value as Partial<FetchingBroker> | undefined)?.fetch === 'function';
}
