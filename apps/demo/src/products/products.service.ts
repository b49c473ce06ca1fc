import { randomUUID } from 'node:crypto';
import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { BroadcastPublisher, type BroadcastReceipt } from 'nestjs-kafka-broadcast';
import { ProductCache } from '../cache/product-cache.js';
import { DEMO_CONFIG, type DemoConfig } from '../config.js';
import type { Product, ProductChanges } from './product.js';
import { PRODUCT_CHANGED, type ProductChangedEvent } from './product-changed.event.js';
import { ProductsStore } from './products.store.js';

/** Reads go through this instance's cache; writes go to the store and are broadcast to all instances. */
@Injectable()
export class ProductsService {
  constructor(
    private readonly store: ProductsStore,
    private readonly cache: ProductCache,
    private readonly publisher: BroadcastPublisher,
    @Inject(DEMO_CONFIG) private readonly config: DemoConfig,
  ) {}

  async get(id: number): Promise<{ product: Product; cache: 'hit' | 'miss' }> {
    const cached = this.cache.get(id);
    if (cached) return { product: cached, cache: 'hit' };
    const product = await this.store.find(id);
    if (!product) throw new NotFoundException(`No product ${id}`);
    this.cache.set(product);
    return { product, cache: 'miss' };
  }

  /**
   * Updates the product, then broadcasts `product.changed`. This instance's own cache entry
   * is evicted by the broadcast too, like everyone else's, so the demo measures one path.
   * The publish asks for receipts: it resolves once every live instance answered (or 5 s
   * passed), so the answer says on how many instances the cache entry is really gone.
   */
  async update(
    id: number,
    changes: ProductChanges,
  ): Promise<{ product: Product; event: ProductChangedEvent; receipt: EvictionReceipt }> {
    const product = await this.store.update(id, changes);
    if (!product) throw new NotFoundException(`No product ${id}`);
    const event: ProductChangedEvent = {
      id,
      changedAt: Date.now(),
      changeId: randomUUID(),
      by: this.config.instanceName,
    };
    const receipt = await this.publisher.publish(PRODUCT_CHANGED, event, {
      key: String(id),
      receipts: { timeoutMs: RECEIPT_TIMEOUT_MS },
    });
    return { product, event, receipt: { summary: summarize(receipt), ...receipt } };
  }
}

const RECEIPT_TIMEOUT_MS = 5_000;

/** The receipt, with a one-line summary such as "evicted on 3/3 instances". */
export type EvictionReceipt = BroadcastReceipt & { summary: string };

function summarize(receipt: BroadcastReceipt): string {
  const parts = [`evicted on ${receipt.ok.length}/${receipt.expected.length} instances`];
  if (receipt.failed.length > 0)
    parts.push(`failed on ${receipt.failed.map((f) => f.instanceId).join(', ')}`);
  if (receipt.missing.length > 0) parts.push(`no answer from ${receipt.missing.join(', ')}`);
  return parts.join('; ');
}
