/**
 * Three Nest applications in one process, each with its own DataSource and its own
 * @OnBroadcast provider: every app receives every broadcast, each through its own group.
 */
import { Injectable, type INestApplication } from '@nestjs/common';
import {
  BroadcastModule,
  BroadcastPublisher,
  BroadcastReader,
  OnBroadcast,
  type BroadcastMessage,
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

interface Received {
  n: number;
  from: string;
}

/** A distinct receiver class per app, as three separately deployed services would have. */
function receiverClass(label: string) {
  @Injectable()
  class Receiver {
    readonly label = label;
    readonly received: Received[] = [];
    readonly topics = new Set<string>();

    @OnBroadcast('prices')
    onPrice(payload: Received, message: BroadcastMessage<Received>) {
      this.topics.add(message.topic);
      this.received.push(payload);
    }
  }
  Object.defineProperty(Receiver, 'name', { value: `Receiver_${label}` });
  return Receiver;
}

describe.each(kafkaClients())('three Nest apps in one process, %s client', (client) => {
  it('each receives every message, through three distinct consumer groups and locks', async () => {
    const h = useNestHarness('three-apps', undefined, client);
    const labels = ['a', 'b', 'c'];
    const classes = labels.map(receiverClass);
    // Started together: the advisory locks must still hand out three different ids.
    const apps: INestApplication[] = await Promise.all(
      labels.map((label, i) =>
        h.start({
          imports: [
            postgresRoot({ applicationName: appName(`three-${label}`) }),
            BroadcastModule.forRoot(h.options()),
          ],
          providers: [classes[i]],
        }),
      ),
    );
    const receivers = apps.map((app, i) => app.get(classes[i]));
    const readers = apps.map((app) => app.get(BroadcastReader));

    // Distinct groups, distinct lock ids, all locked in PostgreSQL.
    const statuses = readers.map((r) => r.status());
    for (const s of statuses) {
      expect(s.state).toBe('ready');
      expect(s.lockMode).toBe('postgres');
    }
    const groupIds = readers.map((r) => r.groupId!);
    expect(new Set(groupIds).size).toBe(3);
    expect(groupIds.map((g, i) => g === statuses[i].groupId)).toEqual([true, true, true]);
    const lockIds = statuses.map((s) => s.lockId!).sort();
    expect(lockIds).toEqual([0, 1, 2]);
    expect(groupIds.sort()).toEqual(lockIds.map((id) => `${h.prefix}broadcastConsumer-${id}`));
    expect(await h.groups()).toEqual(groupIds.sort());

    const pgProbe = await pgClient();
    h.defer(() => pgProbe.end());
    const locks = await heldLocks(pgProbe, lockKeyOf(h.prefix));
    expect(locks.map((l) => l.id)).toEqual([0, 1, 2]);
    // Each app's lock sits on its own DataSource's connection.
    expect(new Set(locks.map((l) => l.applicationName))).toEqual(
      new Set(labels.map((l) => appName(`three-${l}`))),
    );

    // Publish 20 messages, from all three apps in turn.
    const count = 20;
    for (let n = 0; n < count; n++) {
      await apps[n % 3].get(BroadcastPublisher).publish('prices', { n, from: labels[n % 3] });
    }
    await waitFor(() => receivers.every((r) => r.received.length >= count), {
      timeoutMs: 20_000,
      message: `every app receives ${count} messages (got ${receivers.map((r) => r.received.length).join('/')})`,
    });

    const expected = Array.from({ length: count }, (_, n) => ({
      n,
      from: labels[n % 3],
    }));
    for (const r of receivers) {
      expect(r.received).toEqual(expected); // all, once each, in order (one partition)
      expect([...r.topics]).toEqual(['prices']);
    }
    for (const r of readers) expect(r.status().received).toBe(count);

    // Each group has exactly one member: no app shares another's group.
    // (describeGroup: KIP-848 groups, the @platformatic/kafka default, by ConsumerGroupDescribe.)
    const groups = await Promise.all(groupIds.map((g) => h.describeGroup(g)));
    expect(groups.map((g) => [g.groupId, g.state, g.members.length])).toEqual(
      groupIds.sort().map((g) => [g, 'Stable', 1]),
    );
  });
});
