/**
 * A stopping engine deletes the group it left, under its lock when it has one: the pool on the
 * broker holds the groups of live instances (and of crashed ones until their members expire), not
 * one group per id ever used. Lock-free ids are drawn at random over the whole pool, so before
 * this a few deploys left nearly every id with an empty group. On the real broker, both clients
 * (@platformatic/kafka on its default protocol, KIP-848 here), both lock modes.
 */
import { useEngineHarness } from '../support/engine/engine.js';
import { LockInspector } from '../support/engine/lock-inspector.js';
import { clientScoped, kafkaClients } from '../support/broker/kafka-clients.js';

const TOPIC = 'news';

describe.each(kafkaClients())('stop deletes the group it left, %s client', (client) => {
  it('lock-free: the group is gone once stop() resolves; the other engine keeps its own', async () => {
    const h = useEngineHarness(clientScoped('stop-deletes-lf', client), undefined, client);
    await h.createTopics([{ topic: TOPIC }]);
    const a = await h.start({ lock: 'none', topics: [TOPIC], name: 'a' });
    const b = await h.start({ lock: 'none', topics: [TOPIC], name: 'b' });
    const [groupA, groupB] = [a.status().groupId!, b.status().groupId!];
    expect((await h.listGroups()).sort()).toEqual([groupA, groupB].sort());

    await h.stopEngine(a);
    expect(await h.listGroups()).toEqual([groupB]);
    expect((await h.members([groupB])).get(groupB)).toHaveLength(1);
  });

  it('PostgreSQL: the group is deleted before the lock is released, and the id is reused', async () => {
    const h = useEngineHarness(clientScoped('stop-deletes-pg', client), undefined, client);
    await h.createTopics([{ topic: TOPIC }]);
    const inspector = await LockInspector.open('postgres', h.lockNamespace);
    h.onCleanup(() => inspector.close());
    const a = await h.start({ lock: 'postgres', topics: [TOPIC], name: 'a' });
    const group = a.status().groupId!;
    expect(group).toBe(h.groupName('postgres', 0));

    await h.stopEngine(a);
    expect(await inspector.holder(0)).toBeUndefined();
    expect(await h.listGroups()).toEqual([]);

    const c = await h.start({ lock: 'postgres', topics: [TOPIC], name: 'c' });
    expect(c.status().groupId).toBe(group);
  });
});
