import type { RosterInstance } from '../../../interfaces/broadcast-roster.interface.js';
import { UnmatchedTargetWarnings, unmatchedTargets } from './unmatched-targets.js';

const instance = (instanceId: string, service: string, topics: string[]): RosterInstance => ({
  instanceId,
  service,
  groupId: `p.${service}-0`,
  lockId: 0,
  libraryVersion: '0',
  topics,
  since: 1,
  receipts: true,
  lastSeen: 2,
});

describe('unmatchedTargets', () => {
  const live = [instance('a', 'cache', ['t']), instance('b', 'billing', ['other'])];

  it('lists the instance ids and services in `to` that no live reader of the topic has', () => {
    expect(unmatchedTargets({ instances: ['a', 'nobody'] }, live, 't')).toEqual(['nobody']);
    // b is live but does not read t: a target that only it matches reaches nobody.
    expect(
      unmatchedTargets({ instances: ['b'], services: ['billing', 'cache'] }, live, 't'),
    ).toEqual(['b', 'billing']);
    expect(unmatchedTargets(undefined, live, 't')).toEqual([]);
  });
});

describe('UnmatchedTargetWarnings', () => {
  it('warns once per topic and names, saying whether anyone receives it', () => {
    const warnings: string[] = [];
    const log = {
      log: () => undefined,
      error: () => undefined,
      warn: (m: string) => void warnings.push(m),
    };
    const warn = new UnmatchedTargetWarnings(log);
    warn.warn('t', ['nobody'], false);
    warn.warn('t', ['nobody'], false);
    warn.warn('t', ['ghost'], true);
    warn.warn('t', [], false);
    expect(warnings).toEqual([
      'Targeted broadcast on t: no live instance reading it has the id or service nobody; it reaches no instance.',
      'Targeted broadcast on t: no live instance reading it has the id or service ghost; they will not receive it.',
    ]);
  });
});
