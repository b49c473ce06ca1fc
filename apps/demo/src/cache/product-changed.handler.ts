import { Injectable, Logger } from '@nestjs/common';
import { OnBroadcast, type BroadcastMessage } from 'nestjs-kafka-broadcast';
import { PRODUCT_CHANGED, type ProductChangedEvent } from '../products/product-changed.event.js';
import { EvictionLog } from './eviction-log.js';
import { ProductCache } from './product-cache.js';

/** Runs on every instance for every `product.changed`: evicts the entry and records the fan-out latency. */
@Injectable()
export class ProductChangedHandler {
  private readonly logger = new Logger(ProductChangedHandler.name);

  constructor(
    private readonly cache: ProductCache,
    private readonly evictions: EvictionLog,
  ) {}

  // An eviction that throws is tried twice more (100 ms, then 200 ms later); one that still
  // fails goes to the dead-letter topic and onHandlerError (see app.module.ts).
  @OnBroadcast(PRODUCT_CHANGED, { retry: { attempts: 3, backoffMs: 100 } })
  onProductChanged(
    event: Partial<ProductChangedEvent>,
    message: BroadcastMessage<ProductChangedEvent>,
  ): void {
    const evictedAt = Date.now();
    // A throw is logged and counted in `failed` by the library (each attempt); it does not stop
    // the reader.
    if (!Number.isInteger(event.id))
      throw new TypeError(`product.changed without an integer id: ${JSON.stringify(event)}`);
    const id = event.id!;
    const changedAt = typeof event.changedAt === 'number' ? event.changedAt : message.timestamp;
    const hadEntry = this.cache.evict(id);
    const latencyMs = Math.max(0, evictedAt - changedAt);
    this.evictions.record({
      productId: id,
      changeId: event.changeId,
      by: event.by,
      hadEntry,
      changedAt,
      evictedAt,
      latencyMs,
      partition: message.partition,
      offset: message.offset,
    });
    this.logger.log(
      `product.changed ${id} from ${event.by ?? '?'}: ${hadEntry ? 'evicted' : 'was not cached'}, ${latencyMs} ms after the change`,
    );
  }
}
