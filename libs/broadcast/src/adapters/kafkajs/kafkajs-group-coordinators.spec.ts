import type { Admin, GroupDescription } from 'kafkajs';
import { KafkajsGroupCoordinators } from './kafkajs-group-coordinators.js';

const group = (groupId: string) => ({ groupId, members: [] }) as unknown as GroupDescription;

/** A Cluster whose groups' coordinators are `coordinatorOf`; every call is recorded. */
function fakeCluster(
  coordinatorOf: (groupId: string) => number,
  failOn = new Set<number>(),
  deleteAnswers: number[] = [],
) {
  const calls: string[] = [];
  const broker = (nodeId: number) => ({
    nodeId,
    describeGroups: async ({ groupIds }: { groupIds: string[] }) => {
      calls.push(`describe@${nodeId}:${groupIds.join(',')}`);
      if (failOn.has(nodeId)) throw new Error('This is not the correct coordinator for this group');
      return { groups: groupIds.map(group) };
    },
    deleteGroups: async (groupIds: string[]) => {
      calls.push(`delete@${nodeId}:${groupIds.join(',')}`);
      const errorCode = deleteAnswers.shift() ?? 0;
      return { results: groupIds.map((groupId) => ({ groupId, errorCode })) };
    },
  });
  return {
    calls,
    cluster: {
      findGroupCoordinator: async ({ groupId }: { groupId: string }) => {
        calls.push(`find:${groupId}`);
        return broker(coordinatorOf(groupId));
      },
      findBroker: async ({ nodeId }: { nodeId: number }) => broker(nodeId),
    },
  };
}

function fakeAdmin() {
  const calls: string[][] = [];
  const admin = {
    describeGroups: async (groupIds: string[]) => {
      calls.push(groupIds);
      return { groups: groupIds.map(group) };
    },
  } as unknown as Admin;
  return { admin, calls };
}

describe('KafkajsGroupCoordinators', () => {
  it('looks a coordinator up once per group and asks each coordinator once per call', async () => {
    const { cluster, calls } = fakeCluster((id) => (id.endsWith('1') ? 2 : 1));
    const { admin, calls: adminCalls } = fakeAdmin();
    const describes = new KafkajsGroupCoordinators();

    const first = await describes.describe(admin, cluster, ['g-0', 'g-1', 'g-2']);
    expect(first.map((g) => g.groupId).sort()).toEqual(['g-0', 'g-1', 'g-2']);
    expect(calls.sort()).toEqual([
      'describe@1:g-0,g-2',
      'describe@2:g-1',
      'find:g-0',
      'find:g-1',
      'find:g-2',
    ]);

    calls.length = 0;
    await describes.describe(admin, cluster, ['g-0', 'g-1', 'g-2', 'g-3']);
    expect(calls.sort()).toEqual(['describe@1:g-0,g-2,g-3', 'describe@2:g-1', 'find:g-3']);
    expect(adminCalls).toEqual([]);
  });

  it("falls back to the client's own call when a coordinator refuses, and looks its groups up again", async () => {
    const failOn = new Set([2]);
    const { cluster, calls } = fakeCluster((id) => (id.endsWith('1') ? 2 : 1), failOn);
    const { admin, calls: adminCalls } = fakeAdmin();
    const describes = new KafkajsGroupCoordinators();

    const answer = await describes.describe(admin, cluster, ['g-0', 'g-1']);
    expect(answer.map((g) => g.groupId)).toEqual(['g-0', 'g-1']);
    expect(adminCalls).toEqual([['g-0', 'g-1']]);

    failOn.clear();
    calls.length = 0;
    await describes.describe(admin, cluster, ['g-0', 'g-1']);
    // g-1's coordinator was forgotten with the refusal; g-0's is kept.
    expect(calls.sort()).toEqual(['describe@1:g-0', 'describe@2:g-1', 'find:g-1']);
  });

  it('forgets the coordinators of the groups a listing no longer shows', async () => {
    const { cluster, calls } = fakeCluster(() => 1);
    const { admin } = fakeAdmin();
    const describes = new KafkajsGroupCoordinators();
    await describes.describe(admin, cluster, ['g-0', 'g-1']);
    expect(describes.known().sort()).toEqual(['g-0', 'g-1']);
    describes.keepOnly(['g-1']);
    expect(describes.known()).toEqual(['g-1']);
    calls.length = 0;
    await describes.describe(admin, cluster, ['g-0', 'g-1']);
    expect(calls.sort()).toEqual(['describe@1:g-0,g-1', 'find:g-0']);
  });

  it('deletes at the kept coordinator, and looks it up again after NOT_COORDINATOR', async () => {
    const answers: number[] = [];
    const { cluster, calls } = fakeCluster(() => 1, new Set(), answers);
    const { admin } = fakeAdmin();
    const groups = new KafkajsGroupCoordinators();
    await groups.describe(admin, cluster, ['g-0']);
    calls.length = 0;
    await groups.delete(admin, cluster, 'g-0');
    expect(calls).toEqual(['delete@1:g-0']);

    // The broker's answers as kafkajs's deleteGroups gives them: its error, with the group's code.
    answers.push(68);
    const nonEmpty = await groups.delete(admin, cluster, 'g-0').catch((e: unknown) => e);
    expect(nonEmpty).toMatchObject({
      name: 'KafkaJSDeleteGroupsError',
      groups: [{ groupId: 'g-0', errorCode: 68 }],
    });
    answers.push(16);
    await expect(groups.delete(admin, cluster, 'g-0')).rejects.toMatchObject({
      groups: [{ groupId: 'g-0', errorCode: 16 }],
    });
    calls.length = 0;
    await groups.delete(admin, cluster, 'g-0');
    expect(calls).toEqual(['find:g-0', 'delete@1:g-0']);
  });

  it("uses the client's own call without the Cluster internals", async () => {
    const { admin, calls } = fakeAdmin();
    const answer = await new KafkajsGroupCoordinators().describe(admin, undefined, ['g-0']);
    expect(answer.map((g) => g.groupId)).toEqual(['g-0']);
    expect(calls).toEqual([['g-0']]);
  });
});
