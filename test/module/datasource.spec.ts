/**
 * lock.dataSource: the advisory locks come from the named TypeORM DataSource; a name that
 * is not registered fails application startup with an error naming the option.
 */
import { Injectable } from '@nestjs/common';
import {
  BroadcastModule,
  BroadcastOptionsError,
  BroadcastReader,
  OnBroadcast,
} from 'nestjs-kafka-broadcast';
import { waitFor } from '../support/broker/kafka.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';
import {
  appName,
  heldLocks,
  lockKeyOf,
  pgClient,
  postgresRoot,
  useNestHarness,
} from '../support/nest/nest.js';

@Injectable()
class Listener {
  @OnBroadcast('ds.events')
  handle() {}
}

describe.each(kafkaClients())('lock.dataSource, %s client', (client) => {
  it('takes the advisory lock on the named DataSource, not the default one', async () => {
    const h = useNestHarness('named-datasource', undefined, client);
    const defaultName = appName('ds-default');
    const locksName = appName('ds-locks');
    const app = await h.start({
      imports: [
        postgresRoot({ applicationName: defaultName }),
        postgresRoot({ name: 'locks', applicationName: locksName }),
        BroadcastModule.forRoot(h.options({ lock: { dataSource: 'locks' } })),
      ],
      providers: [Listener],
    });

    const status = app.get(BroadcastReader).status();
    expect(status).toMatchObject({
      state: 'ready',
      lockMode: 'postgres',
      lockId: 0,
      groupId: `${h.prefix}broadcastConsumer-0`,
    });

    const probe = await pgClient();
    h.defer(() => probe.end());
    // The one lock of this prefix is held by a connection of the 'locks' DataSource.
    expect(await heldLocks(probe, lockKeyOf(h.prefix))).toEqual([
      { id: 0, applicationName: locksName },
    ]);
  });

  it('a DataSource name that is not registered fails app.init() with an error naming lock.dataSource', async () => {
    const h = useNestHarness('unknown-datasource', undefined, client);
    const defaultName = appName('ds-unknown');
    const app = await h.create({
      imports: [
        postgresRoot({ applicationName: defaultName }),
        BroadcastModule.forRoot(h.options({ lock: { dataSource: 'nosuchds' } })),
      ],
      providers: [Listener],
    });

    const init = app.init();
    await expect(init).rejects.toBeInstanceOf(BroadcastOptionsError);
    await expect(init).rejects.toThrow(
      /Invalid BroadcastModule option "lock\.dataSource": expected the name of a registered TypeORM DataSource.*got "nosuchds"/,
    );
    await expect(init).rejects.toMatchObject({ option: 'lock.dataSource' });
    // Nothing was claimed on the broker.
    expect(await h.groups()).toEqual([]);

    // Closing the half-started app still destroys its DataSource.
    const probe = await pgClient();
    h.defer(() => probe.end());
    const connections = async () =>
      (
        await probe.query(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
          [defaultName],
        )
      ).rows[0].n;
    expect(await connections()).toBeGreaterThan(0);
    await h.close(app);
    // The server drops a backend a moment after the client's Terminate.
    await waitFor(async () => (await connections()) === 0, {
      message: `the connections of ${defaultName} are closed`,
    });
  });
});
