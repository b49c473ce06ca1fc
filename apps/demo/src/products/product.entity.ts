import { Column, Entity, PrimaryColumn, type ValueTransformer } from 'typeorm';

/** PostgreSQL returns numeric as a string to keep its precision; prices fit a JS number. */
const decimal: ValueTransformer = {
  to: (value: number) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};

/**
 * The `products` table. Its DDL lives in TypeOrmProductsStore (CREATE TABLE IF NOT EXISTS under
 * a transaction-scoped advisory lock) rather than `synchronize: true`, because three instances
 * starting at once would race each other's CREATE TABLE.
 */
@Entity('products')
export class ProductEntity {
  @PrimaryColumn('int')
  id: number;

  @Column('text')
  name: string;

  @Column('numeric', { precision: 12, scale: 2, transformer: decimal })
  price: number;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;
}
