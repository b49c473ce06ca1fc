// The allocator takes no lock once its signal aborted: stop() must not cost a database round trip
// (or briefly hold an id another instance is walking towards) after it was called.
import type { AdvisoryLockProvider, HeldLock } from '../../interfaces/advisory-lock.interface.js';
import type { KafkaAdminPort } from '../../interfaces/kafka-port.interface.js';
import { BroadcastGroupAllocator } from './broadcast-group.allocator.js';

const silent = { log: () => undefined, warn: () => undefined, error: () => undefined };

function countingLocks(mode: 'postgres' | 'none', lowest: boolean) {
  const taken: number[] = [];
  const lock = (id: number): HeldLock => ({
    id,
    isHeld: async () => true,
    release: async () => undefined,
  });
  const provider: AdvisoryLockProvider = {
    mode,
    tryLock: async (id) => (taken.push(id), lock(id)),
    ...(lowest && {
      tryLockLowest: async (from: number) => (taken.push(from), lock(from)),
    }),
  };
  return { provider, taken };
}

const admin = { deleteGroup: async () => 'deleted' } as unknown as KafkaAdminPort;

describe('BroadcastGroupAllocator', () => {
  it.each([
    ['lock mode, one id at a time', 'postgres', false],
    ['lock mode, lowest free id', 'postgres', true],
    ['lock-free', 'none', false],
  ] as const)('takes no lock once the signal aborted (%s)', async (_, mode, lowest) => {
    const { provider, taken } = countingLocks(mode, lowest);
    const allocator = new BroadcastGroupAllocator(
      { topicPrefix: 'p.', lockedBase: 'bc', lockFreeBase: 'lf', maxGroups: 4 },
      provider,
      admin,
      silent,
    );
    const stop = new AbortController();
    stop.abort();
    const join = vi.fn(async () => ({ accepted: true as const, value: 1 }));
    await expect(allocator.allocate(join, Date.now() + 5_000, stop.signal)).rejects.toThrow(
      /stopped/,
    );
    expect(taken).toEqual([]);
    expect(join).not.toHaveBeenCalled();
  });
});
