// BroadcastTestingModule: an app's module tested without Kafka or a database. @OnBroadcast handlers
// run after helper.publish() resolves, failures and published records are visible, the module can
// replace the app's BroadcastModule through overrideModule, and two modules share one broker.
import { Injectable, Module, type DynamicModule } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { HealthIndicatorService } from '@nestjs/terminus';
import { BroadcastHealthIndicator } from '../terminus/broadcast.health.js';
import { BroadcastModule } from '../broadcast.module.js';
import { BROADCAST_MODULE_OPTIONS } from '../broadcast.module-definition.js';
import { BroadcastTestingHelper } from './broadcast-testing.helper.js';
import { BroadcastTestingModule } from './broadcast-testing.module.js';
import { BroadcastPublisher } from '../../core/publishing/broadcast.publisher.js';
import { BroadcastGroupAllocator } from '../../views/broadcast-group-allocator.view.js';
import { BroadcastHeartbeat } from '../../views/broadcast-heartbeat.view.js';
import { BroadcastReader } from '../../views/broadcast-reader.view.js';
import { BroadcastRoster } from '../../views/broadcast-roster.view.js';
import { OnBroadcast } from '../on-broadcast.decorator.js';
import { InMemoryKafka } from '../../testing/in-memory-kafka.js';

@Injectable()
class Cache {
  readonly evicted: number[] = [];

  @OnBroadcast('product.changed')
  evict(event: { id: number }): void {
    if (event.id < 0) throw new Error(`bad id ${event.id}`);
    this.evicted.push(event.id);
  }
}

/** An application module as users write it: BroadcastModule.forRoot with a real broker address. */
const broadcast: DynamicModule = BroadcastModule.forRoot({
  kafka: { brokers: ['kafka.invalid:9092'] },
  startupTimeoutMs: 60_000,
});

@Module({ imports: [broadcast], providers: [Cache] })
class AppModule {}

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

async function boot(imports: DynamicModule[] | (new () => unknown)[], providers = [Cache]) {
  const moduleRef = await Test.createTestingModule({ imports, providers }).compile();
  moduleRef.useLogger(quiet);
  return moduleRef.init();
}

describe('BroadcastTestingModule', () => {
  it('runs the handlers before publish() resolves, without Kafka or a database', async () => {
    const app = await boot([BroadcastTestingModule.forRoot({ topicPrefix: 't.' })]);
    const helper = app.get(BroadcastTestingHelper);
    await helper.publish('product.changed', { id: 7 });
    expect(app.get(Cache).evicted).toEqual([7]);
    expect(helper.published('product.changed').map((r) => r.payload)).toEqual([{ id: 7 }]);
    expect(app.get(BroadcastReader).status().state).toBe('ready');
    await app.close();
  });

  it('with waitForReady: false (as behind probes), publish() right after init still reaches the handlers', async () => {
    const app = await boot([
      BroadcastTestingModule.forRoot({ topicPrefix: 't.', waitForReady: false }),
    ]);
    const helper = app.get(BroadcastTestingHelper);
    await helper.publish('product.changed', { id: 8 });
    expect(app.get(Cache).evicted).toEqual([8]);
    expect(app.get(BroadcastReader).status().state).toBe('ready');
    await app.close();
  });

  it('provides what forRoot provides, and the health indicator reports up', async () => {
    const app = await Test.createTestingModule({
      imports: [BroadcastTestingModule.forRoot()],
      providers: [
        Cache,
        BroadcastHealthIndicator,
        { provide: HealthIndicatorService, useValue: new HealthIndicatorService() },
      ],
    }).compile();
    app.useLogger(quiet);
    await app.init();
    for (const token of [
      BroadcastPublisher,
      BroadcastReader,
      BroadcastGroupAllocator,
      BroadcastHeartbeat,
      BroadcastRoster,
    ]) {
      expect(app.get(token)).toBeDefined();
    }
    expect(app.get(BROADCAST_MODULE_OPTIONS)).toMatchObject({ lock: false });
    // No heartbeats by default in tests: ready is healthy, and alive, before any broadcast.
    expect(app.get(BroadcastHealthIndicator).isHealthy()).toMatchObject({
      broadcast: { status: 'up', lockMode: 'none' },
    });
    expect(app.get(BroadcastHealthIndicator).isAlive()).toMatchObject({
      broadcast: { status: 'up' },
    });
    await app.get(BroadcastTestingHelper).publish('product.changed', { id: 1 });
    expect(app.get(BroadcastHealthIndicator).isHealthy()).toMatchObject({
      broadcast: { status: 'up', lockMode: 'none' },
    });
    expect((await app.get(BroadcastRoster).refresh()).length).toBe(1);
    await app.close();
  });

  it('records handler failures and resolves publish() all the same', async () => {
    const app = await boot([BroadcastTestingModule.forRoot()]);
    const helper = app.get(BroadcastTestingHelper);
    await helper.publish('product.changed', { id: -1 });
    expect(helper.failures).toEqual([
      expect.objectContaining({
        handler: 'Cache.evict',
        topic: 'product.changed',
        reason: 'bad id -1',
      }),
    ]);
    const receipt = await helper.publish('product.changed', { id: -2 }, { receipts: true });
    expect(receipt.failed).toHaveLength(1);
    helper.clearFailures();
    expect(helper.failures).toEqual([]);
    await app.close();
  });

  it("replaces the app's BroadcastModule through overrideModule (the same dynamic module)", async () => {
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] })
      .overrideModule(broadcast)
      .useModule(BroadcastTestingModule.forRoot())
      .compile();
    moduleRef.useLogger(quiet);
    const app = await moduleRef.init();
    await app.get(BroadcastTestingHelper).publish('product.changed', { id: 3 });
    expect(app.get(Cache).evicted).toEqual([3]);
    await app.close();
  });

  it('gives every module on one broker every message: two instances in one test', async () => {
    const broker = new InMemoryKafka();
    const a = await boot([BroadcastTestingModule.forRoot({ broker, instanceId: 'a' })]);
    const b = await boot([BroadcastTestingModule.forRoot({ broker, instanceId: 'b' })]);
    const receipt = await a
      .get(BroadcastTestingHelper)
      .publish('product.changed', { id: 5 }, { receipts: true });
    expect(a.get(Cache).evicted).toEqual([5]);
    expect(b.get(Cache).evicted).toEqual([5]);
    expect([...receipt.ok].sort()).toEqual(['a', 'b']);
    await Promise.all([a.close(), b.close()]);
    expect(broker.groupIds().flatMap((g) => broker.members(g) ?? [])).toEqual([]);
  });
});
