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

type Join = (groupId: string) => Promise<{ accepted: boolean; reason?: string }>;

/** What the reader does with the free groups offered: join each until one is accepted. */
async function allocate(
  allocator: BroadcastGroupAllocator,
  join: Join,
  deadline: number,
  signal: AbortSignal,
  budgetMs?: number,
) {
  for await (const group of allocator.freeGroups(deadline, signal, budgetMs)) {
    const joined = await join(group.groupId);
    if (!joined.accepted) {
      group.refuse(joined.reason ?? 'refused');
      continue;
    }
    group.keep();
    return group;
  }
  throw new Error('unreachable');
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
    await expect(allocate(allocator, join, Date.now() + 5_000, stop.signal)).rejects.toThrow(
      /stopped/,
    );
    expect(taken).toEqual([]);
    expect(join).not.toHaveBeenCalled();
  });

  // The allocator only offers groups; whatever the caller does with one, a group it does not keep
  // goes back to the pool: refused, or left behind when the caller throws (a missing ACL).
  it('releases the lock of an offered group the caller refused or threw over, keeps a kept one', async () => {
    const released: number[] = [];
    const provider: AdvisoryLockProvider = {
      mode: 'postgres',
      tryLock: async (id) => ({
        id,
        isHeld: async () => true,
        release: async () => void released.push(id),
      }),
    };
    const allocator = new BroadcastGroupAllocator(
      { topicPrefix: 'p.', lockedBase: 'bc', lockFreeBase: 'lf', maxGroups: 4 },
      provider,
      admin,
      silent,
    );
    const signal = new AbortController().signal;
    const offered = allocator.freeGroups(Date.now() + 5_000, signal);
    const throwing = (async () => {
      for await (const group of offered) {
        if (group.id === 0) group.refuse('shared with member(s) x');
        else throw new Error(`refused login at ${group.groupId}`);
      }
    })();
    await expect(throwing).rejects.toThrow('refused login at p.bc-1');
    expect(released).toEqual([0, 1]);
    const kept = await allocate(
      allocator,
      async () => ({ accepted: true }),
      Date.now() + 5_000,
      signal,
    );
    expect(kept.groupId).toBe('p.bc-0');
    expect(released).toEqual([0, 1]);
    expect(allocator.exhausted).toBe(false);
  });

  // The reader sets the deadline before its topic check; when that check outlasts the start-up
  // budget, the allocator starts after the deadline, and `deadline - started` was negative.
  it('reports the start-up budget it was given, not a negative time, when the deadline already passed', async () => {
    const { provider } = countingLocks('postgres', false);
    const allocator = new BroadcastGroupAllocator(
      { topicPrefix: 'p.', lockedBase: 'bc', lockFreeBase: 'lf', maxGroups: 4 },
      provider,
      admin,
      silent,
    );
    const join = vi.fn(async () => ({ accepted: true as const, value: 1 }));
    const signal = new AbortController().signal;
    const late = allocate(allocator, join, Date.now() - 5_134, signal, 1_000);
    await expect(late).rejects.toThrow(/within 1000 ms/);
    const noBudget = allocate(allocator, join, Date.now() - 5_134, signal);
    await expect(noBudget).rejects.toThrow(/within 0 ms/);
    expect(join).not.toHaveBeenCalled();
  });
});

/** A lock-free allocator over `maxGroups` ids whose admin lists `occupied()` as the pool's members. */
function lockFree(
  maxGroups: number,
  occupied: () => Promise<number[]>,
  deleteGroup: (groupId: string) => string = () => 'deleted',
  brokerClaim?: (groupId: string) => Promise<boolean>,
) {
  const listings: number[] = [];
  const deleted: string[] = [];
  const admin = {
    deleteGroup: async (groupId: string) => (deleted.push(groupId), deleteGroup(groupId)),
    occupiedGroups: async (prefix: string) => {
      listings.push(Date.now());
      return (await occupied()).map((id) => `${prefix}${id}`);
    },
  } as unknown as KafkaAdminPort;
  const { provider } = countingLocks('none', false);
  const allocator = new BroadcastGroupAllocator(
    { topicPrefix: 'p.', lockedBase: 'bc', lockFreeBase: 'lf', maxGroups },
    provider,
    admin,
    silent,
    undefined,
    brokerClaim,
  );
  return { allocator, listings, deleted };
}

const poolId = (groupId: string) => Number(groupId.slice('p.lf-'.length));

describe('BroadcastGroupAllocator, lock-free', () => {
  it('joins only an id that the listing of the pool saw without members', async () => {
    const taken = Array.from({ length: 199 }, (_, id) => id);
    const { allocator } = lockFree(200, async () => taken);
    const joined: number[] = [];
    const join = vi.fn(async (groupId: string) => {
      joined.push(poolId(groupId));
      return { accepted: true as const, value: 1 };
    });
    const claim = await allocate(allocator, join, Date.now() + 5_000, new AbortController().signal);
    expect(joined).toEqual([199]);
    expect(claim.groupId).toBe('p.lf-199');
  });

  it('lists the pool again after a refused join, and joins a group the new listing saw free', async () => {
    // Before the first join nobody is there; then every id but the one after the first joined is
    // taken (a mass start).
    const joined: number[] = [];
    const free = () => (joined[0] + 1) % 50;
    let round = 0;
    const { allocator, listings } = lockFree(50, async () =>
      round++ === 0 ? [] : Array.from({ length: 50 }, (_, id) => id).filter((id) => id !== free()),
    );
    const join = vi.fn(async (groupId: string) => {
      joined.push(poolId(groupId));
      return joined.length === 1
        ? { accepted: false as const, reason: 'shared with member(s) x' }
        : { accepted: true as const, value: 1 };
    });
    const claim = await allocate(allocator, join, Date.now() + 5_000, new AbortController().signal);
    expect(listings).toHaveLength(2);
    expect(joined).toHaveLength(2);
    expect(claim.groupId).toBe(`p.lf-${free()}`);
  });

  it('still claims an id the listing saw taken when it is free after all (the listing is a hint)', async () => {
    const { allocator } = lockFree(
      5,
      async () => [0, 1, 2, 3, 4],
      (groupId) => (groupId === 'p.lf-3' ? 'deleted' : 'non-empty'),
    );
    const join = vi.fn(async () => ({ accepted: true as const, value: 1 }));
    const claim = await allocate(allocator, join, Date.now() + 5_000, new AbortController().signal);
    expect(claim.groupId).toBe('p.lf-3');
    expect(join).toHaveBeenCalledTimes(1);
  });

  it('allocates without a hint when the listing fails', async () => {
    const { allocator } = lockFree(3, () => Promise.reject(new Error('ListGroups refused')));
    const join = vi.fn(async () => ({ accepted: true as const, value: 1 }));
    const claim = await allocate(allocator, join, Date.now() + 5_000, new AbortController().signal);
    expect(claim.groupId).toMatch(/^p\.lf-[0-2]$/);
  });

  it('where the broker enforces the claim, joins an id the listing saw free without deleting it first', async () => {
    // A mass start: the first listing sees nobody, the join of the first draw is refused (the
    // broker's UNRELEASED_INSTANCE_ID), the next listing sees only that id taken.
    const joined: number[] = [];
    let round = 0;
    const { allocator, deleted } = lockFree(
      4,
      async () => (round++ === 0 ? [] : [joined[0]!]),
      undefined,
      async () => true,
    );
    const join = vi.fn(async (groupId: string) => {
      joined.push(poolId(groupId));
      return joined.length === 1
        ? { accepted: false as const, reason: 'shared with member(s) m-1 (UNRELEASED_INSTANCE_ID)' }
        : { accepted: true as const, value: 1 };
    });
    const claim = await allocate(allocator, join, Date.now() + 5_000, new AbortController().signal);
    expect(joined).toHaveLength(2);
    expect(claim.groupId).toBe(`p.lf-${joined[1]}`);
    expect(deleted).toEqual([]);
  });

  it('still deletes before the join an id the listing saw taken, or when no listing answered, or without the broker claim', async () => {
    // Every id listed taken: the delete refuses all but one, as the cheap refusal.
    const taken = lockFree(
      3,
      async () => [0, 1, 2],
      (groupId) => (groupId === 'p.lf-1' ? 'deleted' : 'non-empty'),
      async () => true,
    );
    const join = vi.fn(async () => ({ accepted: true as const, value: 1 }));
    const signal = new AbortController().signal;
    expect((await allocate(taken.allocator, join, Date.now() + 5_000, signal)).groupId).toBe(
      'p.lf-1',
    );
    expect(taken.deleted).toContain('p.lf-1');
    // No listing: nothing is known to be free.
    const unlisted = lockFree(
      2,
      () => Promise.reject(new Error('ListGroups refused')),
      undefined,
      async () => true,
    );
    const first = await allocate(unlisted.allocator, join, Date.now() + 5_000, signal);
    expect(unlisted.deleted).toEqual([first.groupId]);
    // The classic protocol (no broker claim), or the answer failed: the delete stays.
    for (const brokerClaim of [
      undefined,
      async () => false,
      () => Promise.reject(new Error('x')),
    ]) {
      const classic = lockFree(2, async () => [], undefined, brokerClaim);
      const group = await allocate(classic.allocator, join, Date.now() + 5_000, signal);
      expect(classic.deleted).toEqual([group.groupId]);
    }
  });

  it('still refuses a group the listing saw free when the join finds another member there', async () => {
    const { allocator } = lockFree(2, async () => []);
    const joined: string[] = [];
    const join = vi.fn(async (groupId: string) => {
      joined.push(groupId);
      return joined.length === 1
        ? { accepted: false as const, reason: 'shared with member(s) x' }
        : { accepted: true as const, value: 1 };
    });
    const claim = await allocate(allocator, join, Date.now() + 5_000, new AbortController().signal);
    expect(new Set(joined).size).toBe(2);
    expect(claim.groupId).toBe(joined[1]);
  });
});
