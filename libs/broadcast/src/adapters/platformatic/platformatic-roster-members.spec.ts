// The roster read over a scripted @platformatic/kafka admin: which classic groups are described,
// and when (the real broker paths are covered in test/features/roster.spec.ts and receipts.spec.ts).
import type { Admin } from '@platformatic/kafka';
import { deferred } from '../../shared/async.utils.js';
import { PoolMembersReader } from './platformatic-roster-members.js';

const described = (id: string) => ({
  id,
  members: new Map([
    [`${id}-m`, { id: `${id}-m`, metadata: { topics: ['p.t'], metadata: Buffer.from(id) } }],
  ]),
});

/** A classic-only admin whose ListGroups answers `listing` once `answer()` was called. */
function scripted(listing: string[]) {
  const calls: string[] = [];
  const listed = deferred<void>();
  const admin = {
    listGroups: async () => {
      calls.push('listGroups');
      await listed.promise;
      calls.push('listGroups answered');
      return new Map(listing.map((id) => [id, { id, protocolType: 'consumer', state: 'STABLE' }]));
    },
    describeGroups: async ({ groups }: { groups: string[] }) => {
      calls.push(`describeGroups ${groups.join(',')}`);
      return new Map(groups.map((id) => [id, described(id)]));
    },
  } as unknown as Admin;
  return { admin, calls, answer: () => listed.resolve() };
}

describe('PoolMembersReader', () => {
  it('describes the groups it listed last time while the listing is under way, and new ones after it', async () => {
    const reader = new PoolMembersReader();
    const first = scripted(['p.svc-1', 'p.svc-2', 'p.svc']);
    first.answer();
    await reader.read(first.admin, 'p.', false);
    expect(first.calls).toEqual([
      'listGroups',
      'listGroups answered',
      'describeGroups p.svc-1,p.svc-2',
    ]);
    // svc-2 left, svc-3 is new: the listing decides who counts.
    const second = scripted(['p.svc-1', 'p.svc-3']);
    const reading = reader.read(second.admin, 'p.', false);
    await vi.waitFor(() => expect(second.calls).toContain('describeGroups p.svc-1,p.svc-2'));
    expect(second.calls).not.toContain('listGroups answered');
    second.answer();
    const members = await reading;
    expect(second.calls.slice(-2)).toEqual(['listGroups answered', 'describeGroups p.svc-3']);
    expect(members).toEqual([
      { groupId: 'p.svc-1', memberId: 'p.svc-1-m', topics: ['p.t'], userData: 'p.svc-1' },
      { groupId: 'p.svc-3', memberId: 'p.svc-3-m', topics: ['p.t'], userData: 'p.svc-3' },
    ]);
  });
});
