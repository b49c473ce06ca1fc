import { Body, Controller, Get, Param, ParseIntPipe, Put } from '@nestjs/common';
import { parseProductChanges } from './product-changes.parser.js';
import { ProductsService } from './products.service.js';

@Controller('products')
export class ProductsController {
  constructor(private readonly products: ProductsService) {}

  /** `{ product, cache: 'hit' | 'miss' }`: whether this instance answered from its cache. */
  @Get(':id')
  get(@Param('id', ParseIntPipe) id: number) {
    return this.products.get(id);
  }

  /** Body `{ name, price }`; answers `{ product, event }` once the change is broadcast. */
  @Put(':id')
  update(@Param('id', ParseIntPipe) id: number, @Body() body: unknown) {
    return this.products.update(id, parseProductChanges(body));
  }
}
