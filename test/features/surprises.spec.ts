/**
 * Warnings where a user would be surprised, on the real broker: two live instances given one
 * instance id (receipts and targeting see only one of them), and a targeted publish whose target
 * matches no live instance (with receipts, the receipt names it in `unmatched`; without, a warning
 * once the roster was looked at).
 */
import { useEngineHarness } from '../support/engine/engine.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';
import { waitFor } from '../support/broker/kafka.js';

const TOPIC = 'price.changed';

describe.each(kafkaClients())('surprises that are warned about, %s client', (client) => {
  it('a second live instance with the same instance id is warned about, naming the id and both groups', async () => {
    const h = useEngineHarness('dup-id', {}, client);
    await h.createTopics([{ topic: TOPIC, numPartitions: 1 }]);
    const first = await h.start({ lock: 'none', topics: [TOPIC], name: 'first' });
    const second = await h.start({
      lock: 'none',
      topics: [TOPIC],
      name: 'second',
      options: { instanceId: 'first' },
    });
    const groups = [first.status().groupId!, second.status().groupId!].sort();
    expect(groups[0]).not.toBe(groups[1]);
    const warned = await waitFor(
      () => second.logger.matching(/Two live instances have the instance id "first"/, 'warn')[0],
      { message: `no warning:\n${second.logger.dump()}` },
    );
    expect(warned).toContain(`in groups ${groups[0]} and ${groups[1]}`);
    // The first one says it too, once it looks at the roster, and only once.
    await first.engine.roster.refresh();
    await first.engine.roster.refresh();
    expect(first.logger.matching(/Two live instances have the instance id "first"/)).toHaveLength(
      1,
    );
  });

  it('a targeted publish that matches no live instance warns, and its receipt names the target', async () => {
    const h = useEngineHarness('unmatched', {}, client);
    await h.createTopics([{ topic: TOPIC, numPartitions: 1 }]);
    const a = await h.start({ lock: 'none', topics: [TOPIC], name: 'a' });
    const b = await h.start({ lock: 'none', topics: [TOPIC], name: 'b' });

    const receipt = await a.engine.publisher.publish(
      TOPIC,
      { id: 1 },
      { to: { instances: ['nobody'] }, receipts: { timeoutMs: 5_000 } },
    );
    expect(receipt).toMatchObject({ expected: [], unmatched: ['nobody'], missing: [] });
    expect(
      a.logger.matching(
        /Targeted broadcast on price\.changed: .* nobody; it reaches no instance/,
        'warn',
      ),
    ).toHaveLength(1);

    // One name matches, one does not: b receives it, the other name is reported.
    const partly = await a.engine.publisher.publish(
      TOPIC,
      { id: 2 },
      { to: { instances: ['b', 'ghost'] }, receipts: true },
    );
    expect(partly).toMatchObject({ expected: ['b'], ok: ['b'], unmatched: ['ghost'] });

    // Without receipts: the publish resolves as always, the warning follows from the roster.
    await a.engine.publisher.publish(TOPIC, { id: 3 }, { to: { services: ['billing'] } });
    await waitFor(() => a.logger.matching(/billing; it reaches no instance/, 'warn').length === 1, {
      message: `no warning for billing:\n${a.logger.dump()}`,
    });
    await waitFor(() => b.payloads(TOPIC).length === 1, { message: 'b did not receive id 2' });
    expect(b.payloads(TOPIC)).toEqual([{ id: 2 }]);
    expect(a.payloads(TOPIC)).toEqual([]);
  });
});
