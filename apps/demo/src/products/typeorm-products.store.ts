import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import type { DataSource, Repository } from 'typeorm';
import { SEED_PRODUCTS, type Product, type ProductChanges } from './product.js';
import { ProductEntity } from './product.entity.js';
import { ProductsStore } from './products.store.js';

/**
 * Serialises schema setup across instances: the one-key (bigint) advisory lock form, which
 * never meets the broadcast library's two-key locks. Transaction-scoped, so it cannot leak.
 */
const SCHEMA_LOCK_KEY = 0x64656d6f; // 'demo'

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS products (
  id integer PRIMARY KEY,
  name text NOT NULL,
  price numeric(12, 2) NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
)`;

/** Products in the PostgreSQL `products` table. */
@Injectable()
export class TypeOrmProductsStore extends ProductsStore implements OnModuleInit {
  readonly kind = 'postgres';
  private readonly logger = new Logger(TypeOrmProductsStore.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectRepository(ProductEntity)
    private readonly products: Repository<ProductEntity>,
  ) {
    super();
  }

  /**
   * Creates the table and seeds the missing products. Safe when several instances start at
   * once: the advisory lock serialises the DDL and ON CONFLICT DO NOTHING keeps the seed
   * idempotent (a product changed by a user is never reset).
   */
  async onModuleInit(): Promise<void> {
    const seeded = await this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK_KEY]);
      await manager.query(CREATE_TABLE);
      const values = SEED_PRODUCTS.map(
        (_, i) => `($${3 * i + 1}::int, $${3 * i + 2}::text, $${3 * i + 3}::numeric)`,
      );
      const params = SEED_PRODUCTS.flatMap((p) => [p.id, p.name, p.price]);
      const rows: unknown[] = await manager.query(
        `INSERT INTO products (id, name, price) VALUES ${values.join(', ')} ON CONFLICT (id) DO NOTHING RETURNING id`,
        params,
      );
      return rows.length;
    });
    this.logger.log(seeded > 0 ? `Seeded ${seeded} product(s)` : 'Products already seeded');
  }

  async find(id: number): Promise<Product | undefined> {
    const row = await this.products.findOneBy({ id });
    return row ? toProduct(row) : undefined;
  }

  async update(id: number, changes: ProductChanges): Promise<Product | undefined> {
    const result = await this.products.update({ id }, { ...changes, updatedAt: new Date() });
    if (!result.affected) return undefined;
    return this.find(id);
  }
}

function toProduct(row: ProductEntity): Product {
  return {
    id: row.id,
    name: row.name,
    price: row.price,
    updatedAt: row.updatedAt.toISOString(),
  };
}
