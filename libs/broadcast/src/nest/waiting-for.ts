import type { BroadcastStatus } from '../interfaces/broadcast-status.interface.js';

/** What a reader that is not ready waits for (BroadcastStatus.waitingFor). */
export type WaitingFor = NonNullable<BroadcastStatus['waitingFor']>;

/** Each wait in words, as the readiness reason and the bootstrap warning put it. */
export const WAITS: Readonly<Record<WaitingFor, string>> = {
  kafka: 'waiting for Kafka to answer (kafka.brokers)',
  pool: 'waiting for a free id of the pool (maxGroups)',
  group: 'joining its consumer group',
};

/**
 * What the reader waits for while not ready, as its status names it; a pool with every id
 * taken is a wait even where the status does not name it.
 */
export function waitingFor(status: BroadcastStatus): WaitingFor | undefined {
  return status.waitingFor ?? (status.poolExhausted ? 'pool' : undefined);
}
