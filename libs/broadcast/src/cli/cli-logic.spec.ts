import { planCleanup } from './cleanup-plan.js';
import { parseDuration } from './duration.js';
import { parsePoolGroup, type PoolGroup } from './pool-groups.js';
import { deriveRoster } from './roster.js';
import { formatTable } from './table.js';

const member = (n: number) => ({ memberId: `m${n}`, clientId: `c${n}`, clientHost: `h${n}` });
const group = (base: string, id: number, members: number, state = 'Stable'): PoolGroup => ({
  groupId: `p.${base}-${id}`,
  base,
  id,
  state: members === 0 ? 'Empty' : state,
  members: Array.from({ length: members }, (_, i) => member(id * 10 + i)),
});

describe('parsePoolGroup', () => {
  it('matches <prefix><base>-<n> only', () => {
    const bases = ['broadcastConsumer', 'broadcastLFConsumer'];
    expect(parsePoolGroup('p.broadcastConsumer-12', 'p.', bases)).toEqual({
      base: 'broadcastConsumer',
      id: 12,
    });
    expect(parsePoolGroup('p.broadcastLFConsumer-0', 'p.', bases)?.base).toBe(
      'broadcastLFConsumer',
    );
    for (const other of [
      'pXbroadcastConsumer-1',
      'p.broadcastConsumer-',
      'p.broadcastConsumer-1x',
      'p.news.tail-h-1-abc',
    ])
      expect(parsePoolGroup(other, 'p.', bases)).toBeUndefined();
  });
});

describe('deriveRoster', () => {
  it('counts a group with exactly one member as one live instance', () => {
    const roster = deriveRoster(
      [
        group('b', 0, 1),
        group('b', 1, 2, 'PreparingRebalance'),
        group('b', 2, 0),
        group('b', 3, 1),
      ],
      new Map([['p.b-3', 'api-7']]),
    );
    expect(roster.map((r) => [r.groupId, r.instance])).toEqual([
      ['p.b-0', undefined],
      ['p.b-3', 'api-7'],
    ]);
  });
});

describe('planCleanup', () => {
  it('deletes empty groups above the high-water mark per base and empty retired groups, never one with a member', () => {
    const pool = [
      group('b', 0, 1),
      group('b', 1, 0),
      group('b', 4, 1),
      group('b', 9, 0),
      group('lf', 2, 0),
    ];
    const retired = [
      { groupId: 'old.x-1', state: 'Empty', members: [] },
      { groupId: 'old.x-2', state: 'Stable', members: [member(1)] },
    ];
    const plan = new Map(planCleanup(pool, retired).map((i) => [i.groupId, i.delete]));
    expect(Object.fromEntries(plan)).toEqual({
      'p.b-0': false,
      'p.b-1': false, // below the mark: reused by lowest-first allocation
      'p.b-4': false,
      'p.b-9': true,
      'p.lf-2': true, // no member in that base: mark -1
      'old.x-1': true,
      'old.x-2': false,
    });
  });
});

describe('parseDuration', () => {
  it('reads ms, s, m, h, d and names the option otherwise', () => {
    expect([
      parseDuration('--since', '500ms'),
      parseDuration('--since', '5m'),
      parseDuration('--since', '2h'),
    ]).toEqual([500, 300_000, 7_200_000]);
    expect(() => parseDuration('--since', '5 minutes')).toThrow(
      "--since must be a duration like 30s, 5m or 2h, got '5 minutes'",
    );
  });
});

describe('formatTable', () => {
  it('pads columns to their widest cell', () => {
    expect(
      formatTable(
        ['A', 'BB'],
        [
          ['xxx', 'y'],
          ['z', 'wwww'],
        ],
      ),
    ).toBe('A    BB\nxxx  y\nz    wwww');
  });
});
