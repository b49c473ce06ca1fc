import { Injectable } from '@nestjs/common';

/** One `product.changed` as this instance handled it. */
export interface Eviction {
  productId: number;
  changeId: string | undefined;
  /** Instance that took the update. */
  by: string | undefined;
  /** Whether the cache held the product (false: nothing to evict, still counted). */
  hadEntry: boolean;
  changedAt: number;
  evictedAt: number;
  /** Fan-out latency: evictedAt − changedAt (publisher's clock vs ours: same host in the demo). */
  latencyMs: number;
  partition: number;
  offset: string;
}

const KEEP = 20;

/** The most recent evictions, newest first, and the running totals. */
@Injectable()
export class EvictionLog {
  private readonly recent: Eviction[] = [];
  total = 0;
  lastLatencyMs: number | undefined;

  record(eviction: Eviction): void {
    this.total++;
    this.lastLatencyMs = eviction.latencyMs;
    this.recent.unshift(eviction);
    this.recent.length = Math.min(this.recent.length, KEEP);
  }

  list(): readonly Eviction[] {
    return [...this.recent];
  }
}
