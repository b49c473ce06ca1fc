import { Injectable } from '@nestjs/common';
import { SEED_PRODUCTS, type Product, type ProductChanges } from './product.js';
import { ProductsStore } from './products.store.js';

/**
 * Products in this instance's memory, for running without a database. Each instance has its
 * own copy, so an update changes only the instance that took it; the broadcast still evicts
 * every instance's cache entry.
 */
@Injectable()
export class InMemoryProductsStore extends ProductsStore {
  readonly kind = 'memory';
  private readonly products = new Map<number, Product>(
    SEED_PRODUCTS.map((p) => [p.id, { ...p, updatedAt: new Date().toISOString() }]),
  );

  async find(id: number): Promise<Product | undefined> {
    const product = this.products.get(id);
    return product && { ...product };
  }

  async update(id: number, changes: ProductChanges): Promise<Product | undefined> {
    const current = this.products.get(id);
    if (!current) return undefined;
    const updated = {
      ...current,
      ...changes,
      updatedAt: new Date().toISOString(),
    };
    this.products.set(id, updated);
    return { ...updated };
  }
}
