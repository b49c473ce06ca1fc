// The one import of @confluentinc/kafka-javascript: its native (librdkafka) API, not its
// KafkaJS-compatible one, which hides what the engine needs (a rebalance callback that may assign
// with positions, per-partition end-of-log events, group types in listings).
import { RdKafka } from '@confluentinc/kafka-javascript';

export const { KafkaConsumer, Producer, AdminClient, OffsetSpec } = RdKafka;
export type {
  Assignment,
  GroupDescription,
  IAdminClient,
  LibrdKafkaError,
  Message,
  TopicPartition,
  TopicDescription,
  TopicPartitionOffset,
} from '@confluentinc/kafka-javascript';
export type {
  KafkaConsumer as RdConsumer,
  Producer as RdProducer,
} from '@confluentinc/kafka-javascript';

/**
 * The consumer's incremental (KIP-848, cooperative) rebalance calls and assignmentLost: in the binding's
 * lib/kafka-consumer.js (1.10.1), not in its type declarations.
 */
import type { Assignment } from '@confluentinc/kafka-javascript';

export interface IncrementalConsumer {
  rebalanceProtocol(): 'COOPERATIVE' | 'EAGER' | 'NONE';
  incrementalAssign(assignments: Assignment[]): void;
  incrementalUnassign(assignments: Assignment[]): void;
  /** In a revoke: the assignment was lost (fenced, session expired), not given up. */
  assignmentLost(): boolean;
}

/** Calls a callback-style client method and settles with its answer. */
export function answer<T>(call: (cb: (err: unknown, result: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    try {
      call((err, result) => (err ? reject(err) : resolve(result)));
    } catch (error) {
      // A call on a client that is not connected throws instead of calling back.
      reject(error);
    }
  });
}
