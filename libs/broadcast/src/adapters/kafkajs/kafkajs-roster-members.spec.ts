// The roster read over a scripted kafkajs admin: which groups are described, and when (the real
// broker paths are covered in test/features/roster.spec.ts and receipts.spec.ts).
import kafkajs, { type Admin } from 'kafkajs';
import { deferred } from '../../shared/async.utils.js';
import { LiveMembersReader } from './kafkajs-roster-members.js';

const group = (groupId: string) => ({ groupId, protocolType: 'consumer' });
const described = (groupId: string) => ({
  groupId,
  members: [
    {
      memberId: `${groupId}-m`,
      memberMetadata: kafkajs.AssignerProtocol.MemberMetadata.encode({
        version: 0,
        topics: ['p.t'],
        userData: Buffer.from(`info of ${groupId}`),
      }),
    },
  ],
});

/** A kafkajs admin whose ListGroups answers `listing`, once `listed` is resolved. */
function scripted(listing: string[], options: { failDescribeOf?: string } = {}) {
  const calls: string[] = [];
  const listed = deferred<void>();
  const admin = {
    listGroups: async () => {
      calls.push('listGroups');
      await listed.promise;
      calls.push('listGroups answered');
      return { groups: [...listing.map(group), { groupId: 'other', protocolType: 'connect' }] };
    },
    describeGroups: async (ids: string[]) => {
      calls.push(`describeGroups ${ids.join(',')}`);
      if (ids.includes(options.failDescribeOf ?? '')) throw new Error('The group is gone');
      return { groups: ids.map(described) };
    },
  } as unknown as Admin;
  return { admin, calls, answer: () => listed.resolve() };
}

describe('LiveMembersReader', () => {
  it('describes the listed pool groups after the first listing', async () => {
    const { admin, calls, answer } = scripted(['p.svc-1', 'p.svc-2', 'p.svc']);
    answer();
    const members = await new LiveMembersReader().read(admin, 'p.');
    expect(calls).toEqual(['listGroups', 'listGroups answered', 'describeGroups p.svc-1,p.svc-2']);
    expect(members).toEqual([
      { groupId: 'p.svc-1', memberId: 'p.svc-1-m', topics: ['p.t'], userData: 'info of p.svc-1' },
      { groupId: 'p.svc-2', memberId: 'p.svc-2-m', topics: ['p.t'], userData: 'info of p.svc-2' },
    ]);
  });

  it('then describes the groups it listed last time while the listing is under way, and new ones after it', async () => {
    const reader = new LiveMembersReader();
    const first = scripted(['p.svc-1', 'p.svc-2']);
    first.answer();
    await reader.read(first.admin, 'p.');
    // svc-2 left, svc-3 is new: the listing decides who counts.
    const second = scripted(['p.svc-1', 'p.svc-3']);
    const reading = reader.read(second.admin, 'p.');
    await vi.waitFor(() => expect(second.calls).toContain('describeGroups p.svc-1,p.svc-2'));
    expect(second.calls).not.toContain('listGroups answered');
    second.answer();
    const members = await reading;
    expect(second.calls).toEqual([
      'describeGroups p.svc-1,p.svc-2',
      'listGroups',
      'listGroups answered',
      'describeGroups p.svc-3',
    ]);
    expect(members.map((m) => m.groupId)).toEqual(['p.svc-1', 'p.svc-3']);
  });

  it('describes every listed group after the listing when the early describe failed', async () => {
    const reader = new LiveMembersReader();
    const first = scripted(['p.svc-1', 'p.svc-2']);
    first.answer();
    await reader.read(first.admin, 'p.');
    const second = scripted(['p.svc-1'], { failDescribeOf: 'p.svc-2' });
    second.answer();
    const members = await reader.read(second.admin, 'p.');
    expect(second.calls.at(-1)).toBe('describeGroups p.svc-1');
    expect(members.map((m) => m.groupId)).toEqual(['p.svc-1']);
  });
});
