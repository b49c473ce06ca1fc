/**
 * Targeting on the real broker: `to.instances`, `to.services` (group base names) and
 * `exceptSelf` reach exactly the targeted instances; the others skip the message before any
 * handler and count it as `filtered`; receipts expect only the targeted instances. Also through
 * the microservice transport and BroadcastClient.emit() with a BroadcastRecord.
 */
import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import {
  BroadcastModule,
  BroadcastPublishError,
  BroadcastReader,
  BroadcastRoster,
} from 'nestjs-kafka-broadcast';
import {
  BROADCAST_TRANSPORT,
  BroadcastClient,
  BroadcastRecord,
} from 'nestjs-kafka-broadcast/microservices';
import { waitFor } from '../support/broker/kafka.js';
import { useEngineHarness, type LockKind, type TestEngine } from '../support/engine/engine.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';
import { postgresRoot, useNestHarness } from '../support/nest/nest.js';

const TOPIC = 'flags.reload';

function ids(engines: readonly TestEngine[], n: number): string[] {
  return engines
    .filter((e) => e.payloads(TOPIC).some((p) => (p as { n: number }).n === n))
    .map((e) => e.name)
    .sort();
}

describe.each(kafkaClients())('targeting (%s client)', (client) => {
  it.each<[LockKind]>([['postgres'], ['mariadb'], ['none']])(
    '%s: to.services, to.instances, both, exceptSelf; receipts expect only the targeted',
    async (lock) => {
      const h = useEngineHarness(`target-${lock}`, undefined, client);
      const a1 = await h.start({
        lock,
        topics: [TOPIC],
        name: 'a1',
        options: { groupBaseName: 'svcA' },
      });
      const a2 = await h.start({
        lock,
        topics: [TOPIC],
        name: 'a2',
        options: { groupBaseName: 'svcA' },
      });
      const b1 = await h.start({
        lock,
        topics: [TOPIC],
        name: 'b1',
        options: { groupBaseName: 'svcB' },
      });
      const all = [a1, a2, b1];
      const publish = a1.engine.publisher;

      const toB = await publish.publish(
        TOPIC,
        { n: 1 },
        { to: { services: ['svcB'] }, receipts: true },
      );
      expect(toB.expected).toEqual(['b1']);
      expect(toB.ok).toEqual(['b1']);

      const toA2 = await publish.publish(
        TOPIC,
        { n: 2 },
        { to: { instances: ['a2'] }, receipts: true },
      );
      expect(toA2.ok).toEqual(['a2']);

      const union = await publish.publish(
        TOPIC,
        { n: 3 },
        { to: { instances: ['a1'], services: ['svcB'] }, receipts: true },
      );
      expect(union.ok).toEqual(['a1', 'b1']);

      const others = await publish.publish(TOPIC, { n: 4 }, { exceptSelf: true, receipts: true });
      expect(others.ok).toEqual(['a2', 'b1']);

      // A marker everyone handles: once it is in, every earlier message was read by everyone.
      await publish.publish(TOPIC, { n: 5 });
      await waitFor(() => ids(all, 5).length === 3);
      expect(ids(all, 1)).toEqual(['b1']);
      expect(ids(all, 2)).toEqual(['a2']);
      expect(ids(all, 3)).toEqual(['a1', 'b1']);
      expect(ids(all, 4)).toEqual(['a2', 'b1']);
      expect(all.map((e) => [e.name, e.status().received, e.status().filtered])).toEqual([
        ['a1', 5, 3],
        ['a2', 5, 2],
        ['b1', 5, 1],
      ]);

      const end = await h.topicEnd(h.topic(TOPIC));
      await expect(
        publish.publish(TOPIC, { n: 6 }, { to: { services: ['bad,name'] } }),
      ).rejects.toBeInstanceOf(BroadcastPublishError);
      await expect(publish.publish(TOPIC, { n: 6 }, { to: 'b1' as never })).rejects.toThrow(
        /Invalid publish option "to"/,
      );
      expect(await h.topicEnd(h.topic(TOPIC))).toBe(end);
    },
  );
});

interface Flag {
  name: string;
}

@Controller()
class FlagEvents {
  readonly seen: Flag[] = [];

  @EventPattern<string>(TOPIC, BROADCAST_TRANSPORT)
  onReload(@Payload() flag: Flag) {
    this.seen.push(flag);
  }
}

describe('targeting through the Nest transport', () => {
  it('emit(new BroadcastRecord(data, { to })) reaches only the targeted app; the roster is injectable', async () => {
    const h = useNestHarness('target-nest');
    const start = (instanceId: string) =>
      h.start(
        {
          imports: [
            postgresRoot(),
            BroadcastModule.forRoot(h.options({ instanceId, roster: { intervalMs: 500 } })),
          ],
          controllers: [FlagEvents],
          providers: [BroadcastClient],
        },
        { transport: true },
      );
    const appA = await start('app-a');
    const appB = await start('app-b');
    const roster = appA.get(BroadcastRoster);
    await waitFor(() => roster.instances().length === 2, { message: 'both apps in the roster' });
    expect(roster.instances().map((i) => i.instanceId)).toEqual(['app-a', 'app-b']);

    const client = appA.get(BroadcastClient);
    await lastValueFrom(
      client.emit(TOPIC, new BroadcastRecord({ name: 'b-only' }, { to: { instances: ['app-b'] } })),
      { defaultValue: undefined },
    );
    await lastValueFrom(client.emit(TOPIC, { name: 'everyone' }), { defaultValue: undefined });
    const [eventsA, eventsB] = [appA, appB].map((app) => app.get(FlagEvents));
    await waitFor(() => eventsA.seen.length === 1 && eventsB.seen.length === 2);
    expect(eventsA.seen).toEqual([{ name: 'everyone' }]);
    expect(eventsB.seen).toEqual([{ name: 'b-only' }, { name: 'everyone' }]);
    expect(appA.get(BroadcastReader).status()).toMatchObject({ received: 2, filtered: 1 });
    expect(appB.get(BroadcastReader).status()).toMatchObject({ received: 2, filtered: 0 });
  });
});
