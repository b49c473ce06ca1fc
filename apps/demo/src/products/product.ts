/** A product as the API returns it. */
export interface Product {
  id: number;
  name: string;
  price: number;
  /** ISO 8601 time of the last change. */
  updatedAt: string;
}

/** The body of `PUT /products/:id`. */
export interface ProductChanges {
  name: string;
  price: number;
}

/** Seeded on startup when missing, by every instance, idempotently. */
export const SEED_PRODUCTS: readonly Omit<Product, 'updatedAt'>[] = [
  { id: 1, name: 'Espresso machine', price: 249 },
  { id: 2, name: 'Burr grinder', price: 129.5 },
  { id: 3, name: 'Milk jug', price: 14.9 },
];
