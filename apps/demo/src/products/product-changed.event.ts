/** The broadcast topic (before BROADCAST_TOPIC_PREFIX) announcing a product change. */
export const PRODUCT_CHANGED = 'product.changed';

/** Payload of `product.changed`. */
export interface ProductChangedEvent {
  id: number;
  /** When the change was committed, in ms since the epoch: the start of the fan-out latency. */
  changedAt: number;
  /** Unique per change, so a client can find the eviction a given update caused. */
  changeId: string;
  /** INSTANCE_NAME of the instance that took the update. */
  by: string;
}
