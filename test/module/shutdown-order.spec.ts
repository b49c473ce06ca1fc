/**
 * The `shutdown` option on a real Nest HTTP application (platform-express, listening on a port):
 * 'before-http' (default) stops the engine before Nest closes the HTTP server, 'after-http' once
 * it closed, so no request is answered by an instance that no longer receives broadcasts. Either
 * way app.close() leaves the group and then frees the advisory lock itself, whichever of
 * TypeOrmModule and BroadcastModule the application imports first (TypeORM closes its pool, and
 * with it the lock's connection, in onApplicationShutdown).
 */
import { Controller, Get, type DynamicModule, type INestApplication } from '@nestjs/common';
import {
  BroadcastEngine,
  BroadcastModule,
  BroadcastReader,
  type BroadcastShutdownOrder,
} from 'nestjs-kafka-broadcast';
import { waitFor } from '../support/broker/kafka.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';
import {
  appName,
  CapturingLogger,
  heldLocks,
  lockKeyOf,
  pgClient,
  postgresRoot,
  useNestHarness,
  type NestHarness,
} from '../support/nest/nest.js';

/** What a client sees of this instance: the reader's state, served over HTTP. */
@Controller('state')
class StateController {
  constructor(private readonly reader: BroadcastReader) {}

  @Get()
  state() {
    return { state: this.reader.status().state };
  }
}

type ImportOrder = 'typeorm-first' | 'broadcast-first';

async function listeningApp(
  h: NestHarness,
  label: string,
  shutdown: BroadcastShutdownOrder | undefined,
  order: ImportOrder,
  logger: CapturingLogger,
): Promise<INestApplication> {
  const database = postgresRoot({ applicationName: appName(label) });
  const broadcast = BroadcastModule.forRoot(h.options(shutdown ? { shutdown } : {}));
  const imports: DynamicModule[] =
    order === 'typeorm-first' ? [database, broadcast] : [broadcast, database];
  const app = await h.create({ imports, controllers: [StateController] }, { logger });
  await app.listen(0, '127.0.0.1');
  return app;
}

/**
 * Closes `app` and returns what happened, in order: when the HTTP server closed (and the reader's
 * state then) and when the engine's stop() finished.
 */
async function closeAndRecord(app: INestApplication): Promise<string[]> {
  const events: string[] = [];
  const reader = app.get(BroadcastReader);
  const engine = app.get(BroadcastEngine);
  // The state the reader is in when the server has closed.
  app
    .getHttpServer()
    .once('close', () => events.push(`http closed, reader ${reader.status().state}`));
  const stop = engine.stop.bind(engine);
  vi.spyOn(engine, 'stop').mockImplementation(async () => {
    await stop();
    if (!events.includes('engine stopped')) events.push('engine stopped');
  });
  let closed = false;
  const closing = app.close().then(() => (closed = true));
  // A shutdown that waits on itself (the pool waiting for the lock's connection) never ends.
  await waitFor(() => closed, { timeoutMs: 60_000, message: 'app.close() finishes' });
  await closing;
  return events;
}

async function expectGroupLeftAndLockFree(h: NestHarness, groupId: string, label: string) {
  const probe = await pgClient();
  h.defer(() => probe.end());
  // Left, then deleted (empty) before the lock was released: no such group any more.
  expect(await h.describeGroup(groupId)).toMatchObject({ groupId, state: 'Dead', members: [] });
  const held = await heldLocks(probe, lockKeyOf(h.prefix));
  expect(held.filter((l) => l.applicationName === appName(label))).toEqual([]);
}

describe.each(kafkaClients())('shutdown order, %s client', (client) => {
  it("default ('before-http'): the engine stops, then the HTTP server closes", async () => {
    const h = useNestHarness('shutdown-default', undefined, client);
    const logger = new CapturingLogger();
    const app = await listeningApp(h, 'shutdown-default', undefined, 'typeorm-first', logger);
    const url = await app.getUrl();
    await expect(fetch(`${url}/state`).then((r) => r.json())).resolves.toEqual({ state: 'ready' });
    const groupId = app.get(BroadcastReader).groupId!;

    const events = await closeAndRecord(app);

    expect(events).toEqual(['engine stopped', 'http closed, reader stopped']);
    await expectGroupLeftAndLockFree(h, groupId, 'shutdown-default');
    expect(logger.find('error', /./)).toEqual([]);
  });

  it.each<ImportOrder>(['typeorm-first', 'broadcast-first'])(
    "'after-http' (%s): the HTTP server closes while the engine still reads, then the engine stops",
    async (order) => {
      const label = `shutdown-after-${order}`;
      const h = useNestHarness(label, undefined, client);
      const logger = new CapturingLogger();
      const app = await listeningApp(h, label, 'after-http', order, logger);
      const url = await app.getUrl();
      await expect(fetch(`${url}/state`).then((r) => r.json())).resolves.toEqual({
        state: 'ready',
      });
      const groupId = app.get(BroadcastReader).groupId!;

      const events = await closeAndRecord(app);

      expect(events).toEqual(['http closed, reader ready', 'engine stopped']);
      expect(app.get(BroadcastReader).status().state).toBe('stopped');
      await expectGroupLeftAndLockFree(h, groupId, label);
      expect(logger.find('error', /./)).toEqual([]);
      // The engine unlocked it: TypeORM did not close the lock's connection under it first.
      expect(logger.find('debug', /connection lost/)).toEqual([]);
    },
  );

  it("'after-http' in an app that does not listen: app.close() stops the engine all the same", async () => {
    const h = useNestHarness('shutdown-after-nolisten', undefined, client);
    const logger = new CapturingLogger();
    const app = await h.start(
      {
        imports: [
          postgresRoot({ applicationName: appName('shutdown-after-nolisten') }),
          BroadcastModule.forRoot(h.options({ shutdown: 'after-http' })),
        ],
      },
      { logger },
    );
    const groupId = app.get(BroadcastReader).groupId!;
    await h.close(app);
    expect(app.get(BroadcastReader).status().state).toBe('stopped');
    await expectGroupLeftAndLockFree(h, groupId, 'shutdown-after-nolisten');
    expect(logger.find('error', /./)).toEqual([]);
  });
});
