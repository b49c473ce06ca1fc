/**
 * BroadcastHealthIndicator through Terminus. Readiness (isReady, and isHealthy alike): with
 * heartbeats, up once the reader is ready and a broadcast (a heartbeat) has arrived, down once the
 * newest broadcast is older than health.maxStalenessMs; without, up once ready. Liveness
 * (isAlive): up while the engine runs, stale or not; down once it stopped or its startup failed.
 * It is injectable in any module that imports TerminusModule while BroadcastModule is global (the
 * default), and with isGlobal: false in a module that imports one re-exporting BroadcastModule.
 * The broker-outage case is in module/health-outage.spec.ts (it needs its own broker).
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
import { waitFor } from '../support/broker/kafka.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';
import {
  appName,
  CapturingLogger,
  lockKeyOf,
  pgClient,
  postgresRoot,
  useNestHarness,
  type NestHarness,
} from '../support/nest/nest.js';

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

/** Liveness and readiness through Terminus, under the keys `live` and `ready`. */
async function probes(app: INestApplication) {
  const indicator = app.get(BroadcastHealthIndicator);
  return app
    .get(HealthCheckService)
    .check([() => indicator.isAlive('live'), () => indicator.isReady('ready')]);
}

describe.each(kafkaClients())('BroadcastHealthIndicator, %s client', (client) => {
  it('is up once the first heartbeat arrives, and heartbeats keep it up', async () => {
    const h = useNestHarness('health-heartbeat', undefined, client);
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

  it('without heartbeats: ready, alive and healthy once ready, with no broadcast ever published; not alive once stopped', async () => {
    const h = useNestHarness('health-no-heartbeat', undefined, client);
    const app = await startApp(h, { heartbeat: false });
    const indicator = app.get(BroadcastHealthIndicator);
    // Ready, and nothing received: an idle service that nothing could ever make fresh.
    expect(app.get(BroadcastReader).status()).toMatchObject({
      state: 'ready',
      lastLatencyMs: undefined,
      received: 0,
      heartbeats: 0,
    });

    expect(indicator.isHealthy('broadcast').broadcast).toMatchObject({
      status: 'up',
      state: 'ready',
    });
    expect(indicator.isReady('broadcast').broadcast).toMatchObject({
      status: 'up',
      state: 'ready',
    });
    expect(indicator.isAlive('broadcast').broadcast).toMatchObject({
      status: 'up',
      state: 'ready',
    });
    await expect(probes(app)).resolves.toMatchObject({
      status: 'ok',
      info: { live: { status: 'up' }, ready: { status: 'up' } },
    });

    // A stopped engine is neither alive nor ready.
    await h.close(app);
    expect(indicator.isAlive('broadcast').broadcast).toMatchObject({
      status: 'down',
      state: 'stopped',
      reason: 'the broadcast engine is stopped',
    });
    expect(indicator.isReady('broadcast').broadcast).toMatchObject({
      status: 'down',
      reason: 'reader is stopped',
    });
  });

  it('with heartbeats far apart: up after the first, down once it is older than maxStalenessMs, up again after a broadcast; alive throughout', async () => {
    const h = useNestHarness('health-staleness', undefined, client);
    const maxStalenessMs = 1_500;
    // jitter 0: the first heartbeat goes out at once, the next only a minute later.
    const app = await startApp(h, {
      heartbeat: { intervalMs: 60_000, jitter: 0 },
      health: { maxStalenessMs },
    });
    const indicator = app.get(BroadcastHealthIndicator);
    const alive: string[] = [];
    const ready = () => {
      alive.push(indicator.isAlive('broadcast').broadcast.status);
      return indicator.isReady('broadcast').broadcast;
    };
    expect(app.get(BroadcastReader).status().state).toBe('ready');

    const heartbeat = await waitFor(
      () => {
        const result = ready();
        return result.status === 'up' ? result : undefined;
      },
      { timeoutMs: 15_000, message: 'readiness is up once our heartbeat arrives' },
    );
    expect(heartbeat).toMatchObject({ state: 'ready', maxStalenessMs, heartbeats: 1 });
    await expect(terminusCheck(app)).resolves.toMatchObject({ status: 'ok' });

    const down = await waitFor(
      () => {
        const result = ready();
        return result.status === 'down' ? result : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 25, message: 'readiness goes down once it is stale' },
    );
    // It says why, and not before the limit.
    expect(down).toMatchObject({ state: 'ready', maxStalenessMs });
    expect(down.reason).toMatch(/^newest broadcast is \d+ ms old$/);
    expect(down.lastLatencyMs).toBeGreaterThan(maxStalenessMs);

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

    await app.get(BroadcastPublisher).publish('health.ping', { n: 1 });
    await waitFor(() => ready().status === 'up', {
      message: 'readiness is up again once a broadcast arrives',
    });
    expect(app.get(PingListener).timestamps).toHaveLength(1);
    // Stale is not dead: liveness never went down.
    expect(new Set(alive)).toEqual(new Set(['up']));
  });
});

describe.each(kafkaClients())(
  'BroadcastHealthIndicator liveness when startup fails for good, %s client',
  (client) => {
    it('waitForReady and the pool taken until the startup deadline: app.init() rejects and liveness is down, naming the failure', async () => {
      const h = useNestHarness('health-startup-failed', undefined, client);
      // Another session holds the pool's only id, as another instance would.
      const blocker = await pgClient(appName('health-blocker'));
      h.defer(() => blocker.end());
      const { rows } = await blocker.query('SELECT pg_try_advisory_lock($1::int4, 0) AS locked', [
        lockKeyOf(h.prefix),
      ]);
      expect(rows[0].locked).toBe(true);

      const logger = new CapturingLogger();
      const app = await h.create(
        {
          imports: [
            postgresRoot(),
            TerminusModule,
            BroadcastModule.forRoot(h.options({ maxGroups: 1, startupTimeoutMs: 1_500 })),
          ],
          providers: [PingListener, BroadcastHealthIndicator],
        },
        { logger },
      );
      await expect(app.init()).rejects.toThrow(/Could not allocate a broadcast consumer group/);
      // The wait kept the HTTP server closed (no probe, no /metrics): said once, naming the way out.
      expect(logger.find('warn', /Application bootstrap waits/)).toEqual([
        expect.objectContaining({
          message: expect.stringMatching(
            /waitForReady: true, now waiting for a free id of the pool \(maxGroups\)\): app\.listen\(\) opens the HTTP server, with its health and metrics endpoints, only once .*set waitForReady: false/,
          ),
        }),
      ]);

      const indicator = app.get(BroadcastHealthIndicator);
      // A failed start stops the engine; the reason still names the failure, not the stop.
      expect(indicator.isAlive('broadcast').broadcast).toMatchObject({
        status: 'down',
        state: 'stopped',
        reason: expect.stringMatching(
          /^the broadcast engine failed to start: .*maxGroups 1.*Could not allocate a broadcast consumer group/,
        ),
      });
      expect(indicator.isReady('broadcast').broadcast.status).toBe('down');
    });
  },
);

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

describe.each(kafkaClients())(
  'BroadcastHealthIndicator in a feature module, %s client',
  (client) => {
    it('BroadcastModule global (the default): a module that imports only TerminusModule provides it', async () => {
      const h = useNestHarness('health-feature-global', undefined, client);
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
      const h = useNestHarness('health-feature-local', undefined, client);
      const core = BroadcastCoreModule.with(h.options({ heartbeat: { intervalMs: 1_000 } }));
      const app = await h.start({
        imports: [postgresRoot(), core, HealthModule.with([core])],
      });
      await expectUpInFeatureModule(h, app);
    });
  },
);
