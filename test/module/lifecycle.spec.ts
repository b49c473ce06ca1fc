/**
 * Application lifecycle: app.close() leaves the group and frees the lock so the next app
 * reuses the id; waitForReady decides whether app.init() waits for the group.
 */
import { Injectable, type INestApplication } from '@nestjs/common';
import {
  BroadcastAllocationError,
  BroadcastModule,
  BroadcastPublisher,
  BroadcastReader,
  OnBroadcast,
  type BroadcastModuleOptions,
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

@Injectable()
class Collector {
  readonly payloads: unknown[] = [];

  @OnBroadcast('lifecycle.events')
  onEvent(payload: unknown) {
    this.payloads.push(payload);
  }
}

function startApp(
  h: NestHarness,
  label: string,
  extra: Partial<BroadcastModuleOptions> = {},
  logger?: CapturingLogger,
) {
  return h.start(
    {
      imports: [
        postgresRoot({ applicationName: appName(label) }),
        BroadcastModule.forRoot(h.options(extra)),
      ],
      providers: [Collector],
    },
    { logger },
  );
}

describe.each(kafkaClients())('app lifecycle, %s client', (client) => {
  it('app.close() leaves and deletes the group and frees the lock; the next app reuses the same id and group', async () => {
    const h = useNestHarness('close-reuse', undefined, client);
    const probe = await pgClient();
    h.defer(() => probe.end());
    const lockKey = lockKeyOf(h.prefix);

    // A first app keeps id 0, so the app under test gets a non-trivial id.
    const holder = await startApp(h, 'reuse-holder');
    expect(holder.get(BroadcastReader).status().lockId).toBe(0);

    const a = await startApp(h, 'reuse-a');
    const statusA = a.get(BroadcastReader).status();
    const n = statusA.lockId!;
    const groupA = statusA.groupId!;
    expect(n).toBe(1);
    expect(groupA).toBe(`${h.prefix}broadcastConsumer-${n}`);
    expect(await heldLocks(probe, lockKey)).toEqual([
      { id: 0, applicationName: appName('reuse-holder') },
      { id: n, applicationName: appName('reuse-a') },
    ]);
    const groupsBefore = await h.groups();
    expect(groupsBefore).toEqual([`${h.prefix}broadcastConsumer-0`, groupA]);

    await h.close(a);

    // Right after close: the group is gone (the member left, it did not just time out, and the
    // engine deleted the empty group before it released the lock) ...
    expect(await h.describeGroup(groupA)).toMatchObject({
      groupId: groupA,
      state: 'Dead',
      members: [],
    });
    expect(await h.groups()).toEqual([`${h.prefix}broadcastConsumer-0`]);
    // ... and the lock is free.
    expect(await heldLocks(probe, lockKey)).toEqual([
      { id: 0, applicationName: appName('reuse-holder') },
    ]);

    const b = await startApp(h, 'reuse-b');
    const statusB = b.get(BroadcastReader).status();
    expect(statusB).toMatchObject({
      state: 'ready',
      lockId: n,
      groupId: groupA,
    });
    expect(await h.groups()).toEqual(groupsBefore); // the same id's group again, no other
    expect(await heldLocks(probe, lockKey)).toEqual([
      { id: 0, applicationName: appName('reuse-holder') },
      { id: n, applicationName: appName('reuse-b') },
    ]);

    // And B reads through it.
    await holder.get(BroadcastPublisher).publish('lifecycle.events', { to: 'b' });
    await waitFor(() => b.get(Collector).payloads.length === 1, {
      message: 'app B receives through the reused group',
    });
    expect(b.get(Collector).payloads).toEqual([{ to: 'b' }]);
  });

  describe('waitForReady', () => {
    /** Holds id 0 of the prefix's lock namespace on a session of the test, as another instance would. */
    async function blockOnlyGroup(h: NestHarness) {
      const blocker = await pgClient(appName('ready-blocker'));
      h.defer(() => blocker.end());
      const { rows } = await blocker.query('SELECT pg_try_advisory_lock($1::int4, 0) AS locked', [
        lockKeyOf(h.prefix),
      ]);
      expect(rows[0].locked).toBe(true);
      return async () => {
        const { rows: unlocked } = await blocker.query(
          'SELECT pg_advisory_unlock($1::int4, 0) AS unlocked',
          [lockKeyOf(h.prefix)],
        );
        expect(unlocked[0].unlocked).toBe(true);
      };
    }

    it('false: app.init() resolves before the group is ready; whenReady() resolves once it is', async () => {
      const h = useNestHarness('wait-false', undefined, client);
      const unblock = await blockOnlyGroup(h);
      const logger = new CapturingLogger();

      // The pool's only id is taken: no group can be claimed until it is released.
      const app: INestApplication = await startApp(
        h,
        'wait-false',
        { waitForReady: false, maxGroups: 1, startupTimeoutMs: 1_500 },
        logger,
      );
      const reader = app.get(BroadcastReader);
      let ready = false;
      void reader.whenReady().then(() => (ready = true));
      expect(reader.status()).toMatchObject({
        state: 'starting',
        groupId: undefined,
        lockId: undefined,
      });

      // Past the startup deadline it keeps trying in the background instead of failing.
      await waitFor(
        () =>
          logger.find('error', /Broadcast startup failed, retrying in the background/).length > 0,
        {
          message: 'the reader reports the failed first allocation',
        },
      );
      expect(ready).toBe(false);
      expect(reader.status().state).toBe('starting');

      await unblock();
      await waitFor(() => ready, {
        timeoutMs: 30_000,
        message: 'whenReady() resolves once the id is free',
      });
      expect(reader.status()).toMatchObject({
        state: 'ready',
        lockId: 0,
        groupId: `${h.prefix}broadcastConsumer-0`,
      });

      await app.get(BroadcastPublisher).publish('lifecycle.events', { late: true });
      await waitFor(() => app.get(Collector).payloads.length === 1, {
        message: 'the late-ready app receives',
      });
    });

    it('true (default): app.init() waits, and fails when no group is free before startupTimeoutMs', async () => {
      const h = useNestHarness('wait-true', undefined, client);
      await blockOnlyGroup(h);
      const app = await h.create({
        imports: [
          postgresRoot(),
          BroadcastModule.forRoot(h.options({ maxGroups: 1, startupTimeoutMs: 1_500 })),
        ],
        providers: [Collector],
      });
      const started = Date.now();
      const init = app.init();
      await expect(init).rejects.toBeInstanceOf(BroadcastAllocationError);
      await expect(init).rejects.toThrow(
        /Could not allocate a broadcast consumer group within \d+ ms\. Tried: .*broadcastConsumer-0 \(locked by another instance\)/,
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
      expect(app.get(BroadcastReader).status().groupId).toBeUndefined();
    });
  });
});
