import type { ClusterMetadata } from '@platformatic/kafka';
import { planFetch } from './platformatic-fetch-requests.js';

/** Metadata of one topic `t` whose partitions are led as `partitions` says. */
function metadata(partitions: { leader: number; leaderEpoch?: number }[]): ClusterMetadata {
  return {
    topics: new Map([['t', { id: 'id-t', partitions, partitionsCount: partitions.length }]]),
  } as unknown as ClusterMetadata;
}

const asked = (plan: ReturnType<typeof planFetch>, node: number) =>
  plan.byLeader.get(node)?.flatMap((t) => t.partitions) ?? [];

describe('planFetch', () => {
  it('names the leader epoch the metadata gave, so that a broker no longer leading refuses the fetch', () => {
    // Without it (-1) the old leader, a follower now, served the fetch from its frozen high
    // watermark: empty answers until its sockets closed (rolling-restart spec, 2.0-2.7 s).
    const plan = planFetch(
      [{ topic: 't', partitions: [0, 1] }],
      metadata([
        { leader: 1, leaderEpoch: 3 },
        { leader: 2, leaderEpoch: 0 },
      ]),
      () => 10n,
    );
    expect(asked(plan, 1)).toEqual([
      expect.objectContaining({
        partition: 0,
        fetchOffset: 10n,
        currentLeaderEpoch: 3,
        lastFetchedEpoch: -1,
      }),
    ]);
    expect(asked(plan, 2)).toEqual([
      expect.objectContaining({ partition: 1, currentLeaderEpoch: 0, lastFetchedEpoch: -1 }),
    ]);
  });

  it('sends no epoch (-1) when the metadata has none', () => {
    const plan = planFetch(
      [{ topic: 't', partitions: [0, 1] }],
      metadata([{ leader: 1 }, { leader: 1, leaderEpoch: -1 }]),
      () => 0n,
    );
    expect(asked(plan, 1).map((p) => p.currentLeaderEpoch)).toEqual([-1, -1]);
  });

  it('leaves out partitions without a position or a leader', () => {
    const plan = planFetch(
      [{ topic: 't', partitions: [0, 1, 2] }],
      metadata([
        { leader: 1, leaderEpoch: 1 },
        { leader: -1, leaderEpoch: 1 },
        { leader: 1, leaderEpoch: 1 },
      ]),
      (_topic, partition) => (partition === 2 ? undefined : 5n),
    );
    expect([...plan.requested.keys()]).toHaveLength(1);
    expect(asked(plan, 1).map((p) => p.partition)).toEqual([0]);
  });
});
