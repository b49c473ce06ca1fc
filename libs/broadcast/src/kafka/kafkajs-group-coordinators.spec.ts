// When GroupCoordinators looks a coordinator up again, over a scripted kafkajs Cluster (the real
// broker path, and the requests it saves, are in test/kafka-group-coordinators.spec.ts).
import { GroupCoordinators } from './kafkajs-group-coordinators.js';

const protocolError = (type: string) => Object.assign(new Error(type), { type });

function clusterOf(broker: Record<string, (...args: never[]) => Promise<unknown>>) {
  const calls: string[] = [];
  const node = {
    nodeId: 1,
    deleteGroups: async (...a: never[]) => (calls.push('DeleteGroups'), broker.deleteGroups!(...a)),
    describeGroups: async (...a: never[]) => (
      calls.push('DescribeGroups'),
      broker.describeGroups!(...a)
    ),
  };
  const cluster = {
    findGroupCoordinator: async () => (calls.push('FindCoordinator'), node),
    findBroker: async () => node,
  };
  return { coordinators: GroupCoordinators.of(cluster)!, calls };
}

const described = (groupId: string) => ({ groups: [{ groupId, state: 'Empty', members: [] }] });

describe('GroupCoordinators', () => {
  it('is not made for a Cluster without the parts it needs', () => {
    expect(GroupCoordinators.of(undefined)).toBeUndefined();
    expect(GroupCoordinators.of({ findGroupCoordinator: () => undefined })).toBeUndefined();
  });

  it('finds a group coordinator once for a delete and the describes after it', async () => {
    const { coordinators, calls } = clusterOf({
      deleteGroups: async () => ({ results: [{ groupId: 'g', errorCode: 0 }] }),
      describeGroups: async () => described('g'),
    });
    await coordinators.deleteGroup('g');
    await coordinators.describeGroup('g');
    await coordinators.describeGroup('g');
    expect(calls).toEqual(['FindCoordinator', 'DeleteGroups', 'DescribeGroups', 'DescribeGroups']);
  });

  it('throws a refused delete as kafkajs does, with the group error code, and keeps the coordinator', async () => {
    const { coordinators, calls } = clusterOf({
      // As kafkajs decodes it: each failed result with the error made from its code.
      deleteGroups: async () => ({
        results: [{ groupId: 'g', errorCode: 68, error: protocolError('NON_EMPTY_GROUP') }],
      }),
    });
    const error = await coordinators.deleteGroup('g').catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'KafkaJSDeleteGroupsError',
      groups: [{ groupId: 'g', errorCode: 68 }],
    });
    await coordinators.deleteGroup('g').catch(() => undefined);
    expect(calls.filter((c) => c === 'FindCoordinator')).toHaveLength(1);
  });

  it('looks the coordinator up again after NOT_COORDINATOR on a delete', async () => {
    let moved = true;
    const { coordinators, calls } = clusterOf({
      deleteGroups: async () => {
        if (!moved) return { results: [{ groupId: 'g', errorCode: 0 }] };
        moved = false;
        return {
          results: [{ groupId: 'g', errorCode: 16, error: protocolError('NOT_COORDINATOR') }],
        };
      },
    });
    await expect(coordinators.deleteGroup('g')).rejects.toMatchObject({
      groups: [{ errorCode: 16 }],
    });
    await coordinators.deleteGroup('g');
    expect(calls).toEqual(['FindCoordinator', 'DeleteGroups', 'FindCoordinator', 'DeleteGroups']);
  });

  it('retries a describe once at a coordinator found again when the remembered one moved', async () => {
    let failures = 1;
    const { coordinators, calls } = clusterOf({
      deleteGroups: async () => ({ results: [{ groupId: 'g', errorCode: 0 }] }),
      describeGroups: async () => {
        if (failures-- > 0) throw protocolError('NOT_COORDINATOR');
        return described('g');
      },
    });
    await coordinators.deleteGroup('g');
    await expect(coordinators.describeGroup('g')).resolves.toMatchObject({ groupId: 'g' });
    expect(calls).toEqual([
      'FindCoordinator',
      'DeleteGroups',
      'DescribeGroups',
      'FindCoordinator',
      'DescribeGroups',
    ]);
  });

  it('does not retry a refused describe, nor forget the coordinator for it', async () => {
    const { coordinators, calls } = clusterOf({
      describeGroups: () => Promise.reject(protocolError('GROUP_AUTHORIZATION_FAILED')),
    });
    await expect(coordinators.describeGroup('g')).rejects.toThrow('GROUP_AUTHORIZATION_FAILED');
    await expect(coordinators.describeGroup('g')).rejects.toThrow();
    expect(calls).toEqual(['FindCoordinator', 'DescribeGroups', 'DescribeGroups']);
  });

  it('forgets the coordinator after a lost connection', async () => {
    let failures = 1;
    const { coordinators, calls } = clusterOf({
      describeGroups: async () => {
        if (failures-- > 0)
          throw Object.assign(new Error('Connection closed'), {
            name: 'KafkaJSConnectionClosedError',
          });
        return described('g');
      },
    });
    await expect(coordinators.describeGroup('g')).resolves.toMatchObject({ groupId: 'g' });
    expect(calls.filter((c) => c === 'FindCoordinator')).toHaveLength(2);
  });
});
