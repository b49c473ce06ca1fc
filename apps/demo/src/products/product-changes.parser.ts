import { BadRequestException } from '@nestjs/common';
import type { ProductChanges } from './product.js';

/** Checks the body of `PUT /products/:id`: `{ name: non-empty string, price: number >= 0 }`. */
export function parseProductChanges(body: unknown): ProductChanges {
  const { name, price } = (typeof body === 'object' && body !== null ? body : {}) as Record<
    string,
    unknown
  >;
  const problems: string[] = [];
  if (typeof name !== 'string' || name.trim() === '' || name.length > 200) {
    problems.push('name must be a non-empty string of at most 200 characters');
  }
  if (typeof price !== 'number' || !Number.isFinite(price) || price < 0 || price >= 1e10) {
    problems.push('price must be a number from 0 to 9999999999.99');
  }
  if (problems.length > 0) throw new BadRequestException(problems);
  return {
    name: (name as string).trim(),
    price: Math.round((price as number) * 100) / 100,
  };
}
