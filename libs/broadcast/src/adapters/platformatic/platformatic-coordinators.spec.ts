import type { Admin } from '@platformatic/kafka';
import { PlatformaticCoordinators } from './platformatic-coordinators.js';

/** An Admin whose FindCoordinator answers from `answers` in turn, counting the lookups. */
function adminAnswering(...answers: { host: string; port: number }[]) {
  const asked: string[][] = [];
  const admin = {
    findCoordinator: ({ keys }: { keys: string[] }) => {
      asked.push(keys);
      const next = answers[Math.min(asked.length - 1, answers.length - 1)]!;
      return Promise.resolve([{ key: keys[0], nodeId: 1, ...next }]);
    },
  } as unknown as Admin;
  return { admin, asked };
}

const A = { host: '127.0.0.1', port: 9001 };
const B = { host: '127.0.0.1', port: 9002 };

describe('PlatformaticCoordinators', () => {
  it('asks once per group and answers later callers from what it found', async () => {
    const { admin, asked } = adminAnswering(A);
    const coordinators = new PlatformaticCoordinators(admin);
    expect(await coordinators.of('g-1')).toEqual(A);
    expect(await coordinators.of('g-1')).toEqual(A);
    expect(await coordinators.of('g-2')).toEqual(A);
    expect(asked).toEqual([['g-1'], ['g-2']]);
  });

  it('asks again when told the coordinator moved (fresh)', async () => {
    const { admin, asked } = adminAnswering(A, B);
    const coordinators = new PlatformaticCoordinators(admin);
    await coordinators.of('g-1');
    expect(await coordinators.of('g-1', true)).toEqual(B);
    expect(await coordinators.of('g-1')).toEqual(B);
    expect(asked).toHaveLength(2);
  });

  it('sends a request that failed on a known coordinator once more, to a freshly found one', async () => {
    const { admin, asked } = adminAnswering(A, B);
    const coordinators = new PlatformaticCoordinators(admin);
    await coordinators.of('g-1');
    const sentTo: number[] = [];
    const answer = await coordinators.request('g-1', (c) => {
      sentTo.push(c.port);
      return c.port === A.port
        ? Promise.reject(new Error('NOT_COORDINATOR'))
        : Promise.resolve('ok');
    });
    expect(answer).toBe('ok');
    expect(sentTo).toEqual([A.port, B.port]);
    expect(asked).toHaveLength(2);
  });

  it('reports a failure on a freshly found coordinator as it is, and forgets that coordinator', async () => {
    const { admin, asked } = adminAnswering(A, B);
    const coordinators = new PlatformaticCoordinators(admin);
    await expect(
      coordinators.request('g-1', () => Promise.reject(new Error('GROUP_AUTHORIZATION_FAILED'))),
    ).rejects.toThrow('GROUP_AUTHORIZATION_FAILED');
    expect(await coordinators.of('g-1')).toEqual(B);
    expect(asked).toHaveLength(2);
  });

  it('does not keep a failed lookup', async () => {
    let calls = 0;
    const admin = {
      findCoordinator: () =>
        ++calls === 1
          ? Promise.reject(new Error('COORDINATOR_NOT_AVAILABLE'))
          : Promise.resolve([{ key: 'g-1', nodeId: 1, ...A }]),
    } as unknown as Admin;
    const coordinators = new PlatformaticCoordinators(admin);
    await expect(coordinators.of('g-1')).rejects.toThrow('COORDINATOR_NOT_AVAILABLE');
    expect(await coordinators.of('g-1')).toEqual(A);
    expect(calls).toBe(2);
  });

  it('finds the coordinators of several unknown groups with one request, and asks none it knows', async () => {
    const asked: string[][] = [];
    const admin = {
      findCoordinator: ({ keys }: { keys: string[] }) => {
        asked.push(keys);
        return Promise.resolve(keys.map((key) => ({ key, nodeId: 1, ...A })));
      },
    } as unknown as Admin;
    const coordinators = new PlatformaticCoordinators(admin);
    await coordinators.of('g-1');
    const found = await coordinators.ofAll(['g-1', 'g-2', 'g-3', 'g-4']);
    expect([...found.keys()]).toEqual(['g-1', 'g-2', 'g-3', 'g-4']);
    expect(asked).toEqual([['g-1'], ['g-2', 'g-3', 'g-4']]);
    await coordinators.ofAll(['g-2', 'g-3']);
    expect(asked).toHaveLength(2);
  });

  it('asks group by group when a batch fails, and leaves out a group nobody could find', async () => {
    const asked: string[][] = [];
    const admin = {
      findCoordinator: ({ keys }: { keys: string[] }) => {
        asked.push(keys);
        if (keys.length > 1 || keys[0] === 'g-3')
          return Promise.reject(new Error('COORDINATOR_LOAD_IN_PROGRESS'));
        return Promise.resolve([{ key: keys[0], nodeId: 1, ...B }]);
      },
    } as unknown as Admin;
    const coordinators = new PlatformaticCoordinators(admin);
    const found = await coordinators.ofAll(['g-1', 'g-2', 'g-3']);
    expect(Object.fromEntries(found)).toEqual({ 'g-1': B, 'g-2': B });
    expect(asked).toEqual([['g-1', 'g-2', 'g-3'], ['g-1'], ['g-2'], ['g-3']]);
    // The failed lookup is not kept: the next caller asks again.
    await coordinators.of('g-3').catch(() => undefined);
    expect(asked).toHaveLength(5);
  });
});
