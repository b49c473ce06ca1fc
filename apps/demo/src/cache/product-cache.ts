import { Injectable } from '@nestjs/common';
import type { Product } from '../products/product.js';

/** This instance's in-memory product cache. No expiry: entries leave only when a change is broadcast. */
@Injectable()
export class ProductCache {
  private readonly entries = new Map<number, Product>();

  get(id: number): Product | undefined {
    const product = this.entries.get(id);
    return product && { ...product };
  }

  set(product: Product): void {
    this.entries.set(product.id, { ...product });
  }

  /** True when there was an entry to remove. */
  evict(id: number): boolean {
    return this.entries.delete(id);
  }

  get size(): number {
    return this.entries.size;
  }
}
