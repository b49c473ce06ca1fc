import type { Product, ProductChanges } from './product.js';

/**
 * Where products live: the `products` table (TypeOrmProductsStore) or, without a database,
 * this instance's memory (InMemoryProductsStore). Also the DI token.
 */
export abstract class ProductsStore {
  /** 'postgres' or 'memory', for logs and /broadcast/status. */
  abstract readonly kind: 'postgres' | 'memory';

  abstract find(id: number): Promise<Product | undefined>;

  /** Applies the changes; resolves undefined when there is no such product. */
  abstract update(id: number, changes: ProductChanges): Promise<Product | undefined>;
}
