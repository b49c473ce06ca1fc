import { randomUUID } from 'node:crypto';
import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { BroadcastPublisher } from 'nestjs-kafka-broadcast';
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
   * The publish resolves once the broker has the message (acks = all).
   */
  async update(
    id: number,
    changes: ProductChanges,
  ): Promise<{ product: Product; event: ProductChangedEvent }> {
    const product = await this.store.update(id, changes);
    if (!product) throw new NotFoundException(`No product ${id}`);
    const event: ProductChangedEvent = {
      id,
      changedAt: Date.now(),
      changeId: randomUUID(),
      by: this.config.instanceName,
    };
    await this.publisher.publish(PRODUCT_CHANGED, event, { key: String(id) });
    return { product, event };
  }
}
