/**
 * BroadcastHealthIndicator through Terminus: up once the reader is ready and a broadcast
 * (a heartbeat) has arrived; down once the newest broadcast is older than health.maxStalenessMs.
 * It is injectable in any module that imports TerminusModule while BroadcastModule is global (the
 * default), and with isGlobal: false in a module that imports one re-exporting BroadcastModule.
 * The broker-outage case is in module.health-outage.spec.ts (it needs its own broker).
 */
import {
  Injectable,
  Module,
  ServiceUnavailableException,
  type DynamicModule,
  type INestApplication,
} from '@nestjs/common';
import { HealthCheckService, TerminusModule } from '@nestjs/terminus';
import {
  BroadcastEngine,
  BroadcastModule,
  BroadcastPublisher,
  BroadcastReader,
  OnBroadcast,
  type BroadcastModuleOptions,
} from 'nestjs-kafka-broadcast';
import { BroadcastHealthIndicator } from 'nestjs-kafka-broadcast/terminus';
import { waitFor } from './support/kafka.js';
import { postgresRoot, useNestHarness, type NestHarness } from './support/nest.js';

@Injectable()
class PingListener {
  readonly timestamps: number[] = [];

  @OnBroadcast('health.ping')
  onPing(_payload: unknown, message: { timestamp: number }) {
    this.timestamps.push(message.timestamp);
  }
}

function startApp(
  h: NestHarness,
  extra: Partial<BroadcastModuleOptions>,
): Promise<INestApplication> {
  return h.start({
    imports: [postgresRoot(), TerminusModule, BroadcastModule.forRoot(h.options(extra))],
    providers: [PingListener, BroadcastHealthIndicator],
  });
}

/** Runs the indicator through Terminus, as a /health endpoint would. */
async function terminusCheck(app: INestApplication) {
  const indicator = app.get(BroadcastHealthIndicator);
  return app.get(HealthCheckService).check([() => indicator.isHealthy('broadcast')]);
}

describe('BroadcastHealthIndicator', () => {
  it('is up once the first heartbeat arrives, and heartbeats keep it up', async () => {
    const h = useNestHarness('health-heartbeat');
    const app = await startApp(h, { heartbeat: { intervalMs: 1_000 } });
    const indicator = app.get(BroadcastHealthIndicator);
    const engine = app.get(BroadcastEngine);

    const up = await waitFor(
      () => {
        const result = indicator.isHealthy('broadcast');
        return result.broadcast.status === 'up' ? result : undefined;
      },
      { timeoutMs: 15_000, message: 'health is up after the first heartbeat' },
    );
    expect(up.broadcast).toMatchObject({
      status: 'up',
      state: 'ready',
      lockMode: 'postgres',
      groupId: `${h.prefix}broadcastConsumer-0`,
      maxStalenessMs: 2_000, // default: twice the heartbeat interval
      received: 0, // heartbeats count for freshness, not as received broadcasts
    });
    expect(up.broadcast.lastLatencyMs).toBeLessThanOrEqual(2_000);
    expect(engine.reader.status().heartbeats).toBeGreaterThanOrEqual(1);

    // A few heartbeat intervals later it is still up: the heartbeats keep it fresh.
    await waitFor(() => engine.reader.status().heartbeats >= 3, {
      timeoutMs: 15_000,
      message: 'three heartbeats arrive',
    });
    expect(indicator.isHealthy('broadcast').broadcast.status).toBe('up');
    await expect(terminusCheck(app)).resolves.toMatchObject({
      status: 'ok',
      info: { broadcast: { status: 'up', state: 'ready' } },
    });
  });

  it('without heartbeats: down before any broadcast, up after one, down again once it is older than maxStalenessMs', async () => {
    const h = useNestHarness('health-staleness');
    const maxStalenessMs = 1_500;
    const app = await startApp(h, {
      heartbeat: false,
      health: { maxStalenessMs },
    });
    const indicator = app.get(BroadcastHealthIndicator);
    expect(app.get(BroadcastReader).status().state).toBe('ready');

    // Ready, but nothing received yet: no way to tell how fresh the view is.
    expect(indicator.isHealthy('broadcast').broadcast).toMatchObject({
      status: 'down',
      state: 'ready',
      reason: 'no broadcast received yet',
      maxStalenessMs,
    });

    await app.get(BroadcastPublisher).publish('health.ping', { n: 1 });
    await waitFor(() => indicator.isHealthy('broadcast').broadcast.status === 'up', {
      message: 'health is up once the broadcast arrives',
    });
    const [timestamp] = app.get(PingListener).timestamps;
    await expect(terminusCheck(app)).resolves.toMatchObject({ status: 'ok' });

    const down = await waitFor(
      () => {
        const result = indicator.isHealthy('broadcast').broadcast;
        return result.status === 'down' ? { result, at: Date.now() } : undefined;
      },
      {
        timeoutMs: 10_000,
        intervalMs: 25,
        message: 'health goes down once the broadcast is stale',
      },
    );
    // Not before the limit ...
    expect(down.at - timestamp).toBeGreaterThan(maxStalenessMs);
    // ... and it says why.
    expect(down.result).toMatchObject({ state: 'ready', maxStalenessMs });
    expect(down.result.reason).toMatch(/^newest broadcast is \d+ ms old$/);
    expect(down.result.lastLatencyMs).toBeGreaterThan(maxStalenessMs);

    // Terminus turns it into a 503.
    const failed = await terminusCheck(app).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(ServiceUnavailableException);
    expect((failed as ServiceUnavailableException).getResponse()).toMatchObject({
      status: 'error',
      error: {
        broadcast: {
          status: 'down',
          reason: expect.stringMatching(/newest broadcast is \d+ ms old/),
        },
      },
    });
  });
});

/** A feature module of its own: imports TerminusModule, provides the indicator. */
@Module({})
class HealthModule {
  static with(imports: DynamicModule[] = []): DynamicModule {
    return {
      module: HealthModule,
      imports: [TerminusModule, ...imports],
      providers: [BroadcastHealthIndicator],
      exports: [BroadcastHealthIndicator],
    };
  }
}

/** Imports BroadcastModule.forRoot(isGlobal: false) and re-exports it to whoever imports this. */
@Module({})
class BroadcastCoreModule {
  static with(options: BroadcastModuleOptions): DynamicModule {
    return {
      module: BroadcastCoreModule,
      imports: [BroadcastModule.forRoot({ ...options, isGlobal: false })],
      exports: [BroadcastModule],
    };
  }
}

/** The indicator of `app`'s HealthModule is up, through Terminus, for the app's only engine. */
async function expectUpInFeatureModule(h: NestHarness, app: INestApplication) {
  const indicator = app.get(BroadcastHealthIndicator);
  await waitFor(() => indicator.isHealthy('broadcast').broadcast.status === 'up', {
    timeoutMs: 15_000,
    message: 'health is up after the first heartbeat',
  });
  await expect(terminusCheck(app)).resolves.toMatchObject({
    status: 'ok',
    info: { broadcast: { status: 'up', groupId: app.get(BroadcastReader).groupId } },
  });
  // One engine: the indicator's is the app's, not a second one built by the feature module.
  expect(await h.groups()).toEqual([`${h.prefix}broadcastConsumer-0`]);
}

describe('BroadcastHealthIndicator in a feature module', () => {
  it('BroadcastModule global (the default): a module that imports only TerminusModule provides it', async () => {
    const h = useNestHarness('health-feature-global');
    const app = await h.start({
      imports: [
        postgresRoot(),
        BroadcastModule.forRoot(h.options({ heartbeat: { intervalMs: 1_000 } })),
        HealthModule.with(),
      ],
    });
    await expectUpInFeatureModule(h, app);
  });

  it('isGlobal: false: a module that imports TerminusModule and a module re-exporting BroadcastModule provides it', async () => {
    const h = useNestHarness('health-feature-local');
    const core = BroadcastCoreModule.with(h.options({ heartbeat: { intervalMs: 1_000 } }));
    const app = await h.start({
      imports: [postgresRoot(), core, HealthModule.with([core])],
    });
    await expectUpInFeatureModule(h, app);
  });
});
