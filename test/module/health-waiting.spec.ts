/**
 * `waitForReady: false`, the setting for a service behind liveness and readiness probes, with the
 * pool's only id held by another session: `app.listen()` opens the port at once, while the
 * reader waits. Over real HTTP, as a kubelet probes it: liveness answers 200 (waiting is alive,
 * no restart), readiness 503 naming the pool wait, and both say `waitingFor: 'pool'`; once the id
 * is free the instance takes it and readiness turns 200. (With the default `waitForReady: true`
 * the port stays closed meanwhile: module/health.spec.ts checks the warning that says so.)
 */
import { Controller, Get, type INestApplication } from '@nestjs/common';
import { HealthCheck, HealthCheckService, TerminusModule } from '@nestjs/terminus';
import { BroadcastModule, BroadcastReader } from 'nestjs-kafka-broadcast';
import { BroadcastHealthIndicator } from 'nestjs-kafka-broadcast/terminus';
import { waitFor } from '../support/broker/kafka.js';
import {
  appName,
  CapturingLogger,
  lockKeyOf,
  pgClient,
  postgresRoot,
  useNestHarness,
} from '../support/nest/nest.js';

/** The probes as DEPLOYMENT.md lays them out. */
@Controller('health')
class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly broadcast: BroadcastHealthIndicator,
  ) {}

  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([() => this.broadcast.isAlive('broadcast')]);
  }

  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([() => this.broadcast.isReady('broadcast')]);
  }
}

interface Probe {
  code: number;
  broadcast: { status: string; reason?: string; waitingFor?: string; state?: string };
}

async function probe(app: INestApplication, path: 'live' | 'ready'): Promise<Probe> {
  const response = await fetch(`${await app.getUrl()}/health/${path}`);
  const body = (await response.json()) as { details: { broadcast: Probe['broadcast'] } };
  return { code: response.status, broadcast: body.details.broadcast };
}

it('waitForReady: false and the pool full: the port opens at once, liveness 200, readiness 503 naming the wait, 200 once an id frees', async () => {
  const h = useNestHarness('health-waiting');
  const blocker = await pgClient(appName('health-waiting-blocker'));
  h.defer(() => blocker.end());
  const lock = await blocker.query('SELECT pg_try_advisory_lock($1::int4, 0) AS locked', [
    lockKeyOf(h.prefix),
  ]);
  expect(lock.rows[0].locked).toBe(true);

  // Terminus logs every failed check as an error: kept out of the output.
  const logger = new CapturingLogger();
  const app = await h.create(
    {
      imports: [
        postgresRoot(),
        TerminusModule,
        BroadcastModule.forRoot(
          h.options({ maxGroups: 1, waitForReady: false, heartbeat: { intervalMs: 500 } }),
        ),
      ],
      controllers: [HealthController],
      providers: [BroadcastHealthIndicator],
    },
    { logger },
  );
  await app.listen(0, '127.0.0.1');
  const reader = app.get(BroadcastReader);

  const waiting = await waitFor(
    async () => {
      const ready = await probe(app, 'ready');
      return ready.broadcast.waitingFor === 'pool' ? ready : undefined;
    },
    { timeoutMs: 15_000, message: 'readiness names the pool wait' },
  );
  expect(waiting).toMatchObject({
    code: 503,
    broadcast: { status: 'down', state: 'starting', reason: expect.stringMatching(/maxGroups 1/) },
  });
  expect(await probe(app, 'live')).toMatchObject({
    code: 200,
    broadcast: { status: 'up', state: 'starting', waitingFor: 'pool' },
  });

  await blocker.query('SELECT pg_advisory_unlock($1::int4, 0)', [lockKeyOf(h.prefix)]);
  await waitFor(async () => (await probe(app, 'ready')).code === 200, {
    timeoutMs: 30_000,
    message: 'readiness turns 200 once the id is free (and a heartbeat arrived)',
  });
  expect(reader.status()).toMatchObject({
    state: 'ready',
    lockId: 0,
    poolExhausted: false,
    groupId: `${h.prefix}broadcastConsumer-0`,
  });
  expect((await probe(app, 'live')).code).toBe(200);
});
