// The demo's own unit test: its AppModule with the broadcast on the in-memory broker of
// `nestjs-kafka-broadcast/testing`, so no Kafka and no database (KAFKA_BROKERS may be unset).
// An update goes through ProductsService, its product.changed broadcast evicts the cache entry.
import type { DynamicModule } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { BroadcastModule, BroadcastReader } from 'nestjs-kafka-broadcast';
import { BroadcastTestingHelper, BroadcastTestingModule } from 'nestjs-kafka-broadcast/testing';
import { AppModule } from './app.module.js';
import { EvictionLog } from './cache/eviction-log.js';
import { ProductCache } from './cache/product-cache.js';
import type { DemoConfig } from './config.js';
import { PRODUCT_CHANGED } from './products/product-changed.event.js';
import { ProductsService } from './products/products.service.js';

const config: DemoConfig = {
  port: 0,
  host: undefined,
  // Never contacted: the broadcast module is replaced below.
  brokers: ['kafka.invalid:9092'],
  ssl: undefined,
  sasl: undefined,
  kafkaClient: 'platformatic',
  startupTimeoutMs: 60_000,
  waitForReady: false,
  maxGroups: undefined,
  deadLetterTopic: 'dead-letters',
  failureWebhook: undefined,
  topicPrefix: 'demo-unit.',
  instanceName: 'unit',
  heartbeatIntervalMs: 5_000,
  database: undefined,
};

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * The demo's AppModule with its own BroadcastModule import swapped for the testing module:
 * overrideModule matches the very dynamic module object AppModule.forRoot imported.
 */
async function bootDemo(): Promise<TestingModule> {
  const appModule = AppModule.forRoot(config);
  const broadcast = appModule.imports!.find(
    (m): m is DynamicModule => (m as DynamicModule).module === BroadcastModule,
  )!;
  const moduleRef = await Test.createTestingModule({ imports: [appModule] })
    .overrideModule(broadcast)
    .useModule(
      BroadcastTestingModule.forRoot({ topicPrefix: config.topicPrefix, instanceId: 'unit' }),
    )
    .compile();
  moduleRef.useLogger(quiet);
  return moduleRef.init();
}

describe('demo AppModule on the in-memory broadcast', () => {
  let app: TestingModule;
  beforeEach(async () => {
    app = await bootDemo();
  });
  afterEach(async () => {
    await app?.close();
  });

  it('starts without Kafka and evicts the cached product after an update', async () => {
    expect(app.get(BroadcastReader).status()).toMatchObject({ state: 'ready', lockMode: 'none' });
    const products = app.get(ProductsService);
    await products.get(1);
    expect(app.get(ProductCache).get(1)).toBeDefined();

    const { receipt } = await products.update(1, { name: 'Espresso machine', price: 199 });
    await app.get(BroadcastTestingHelper).waitForHandlers();

    expect(receipt.summary).toBe('evicted on 1/1 instances');
    expect(app.get(ProductCache).get(1)).toBeUndefined();
    expect(app.get(EvictionLog).list()).toMatchObject([
      { productId: 1, by: 'unit', hadEntry: true },
    ]);
    expect((await products.get(1)).product.price).toBe(199);
  });

  it('retries a malformed product.changed twice, counts each failure, and keeps handling', async () => {
    const helper = app.get(BroadcastTestingHelper);
    await helper.publish(PRODUCT_CHANGED, { id: 'not a number' });
    const failure = { handler: 'ProductChangedHandler.onProductChanged', topic: PRODUCT_CHANGED };
    expect(helper.failures).toMatchObject([
      { ...failure, attempt: 1, final: false },
      { ...failure, attempt: 2, final: false },
      { ...failure, attempt: 3, final: true },
    ]);
    await helper.publish(PRODUCT_CHANGED, { id: 2, changedAt: Date.now() });
    expect(app.get(EvictionLog).total).toBe(1);
    expect(helper.published(PRODUCT_CHANGED)).toHaveLength(2);
  });
});
