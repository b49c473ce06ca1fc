import type { RosterInstance } from '../../../interfaces/broadcast-roster.interface.js';
import { DuplicateInstanceIds } from './duplicate-instances.js';

const member = (groupId: string, since: number): RosterInstance => ({
  instanceId: 'twin',
  service: 'svc',
  groupId,
  lockId: 0,
  libraryVersion: '0',
  topics: ['t'],
  since,
  receipts: true,
  lastSeen: 2,
});

describe('DuplicateInstanceIds', () => {
  it('warns once per pair of groups about two instances with one id, not about one moving', () => {
    const warnings: string[] = [];
    const log = {
      log: () => undefined,
      error: () => undefined,
      warn: (m: string) => void warnings.push(m),
    };
    const duplicates = new DuplicateInstanceIds(log);
    duplicates.check(member('p.svc-1', 10), member('p.svc-0', 10)); // one instance moving groups
    expect(warnings).toEqual([]);
    duplicates.check(member('p.svc-1', 10), member('p.svc-0', 20));
    duplicates.check(member('p.svc-0', 20), member('p.svc-1', 10));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/instance id "twin", in groups p\.svc-0 and p\.svc-1/);
  });
});
