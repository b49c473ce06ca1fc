import type { BroadcastLogger } from '../../../interfaces/broadcast-logger.interface.js';
import type { RosterInstance } from '../../../interfaces/broadcast-roster.interface.js';

/**
 * Two live members with one instance id, started at different times, are two instances: a copied
 * configuration or a fixed INSTANCE_NAME. Receipts and targeting go by instance id, so they cannot
 * tell them apart (the roster shows one, a receipt expects one). Warned once per pair of groups.
 * One instance moving between groups has two members briefly too, with one start time: no warning.
 */
export class DuplicateInstanceIds {
  private readonly warned = new Set<string>();

  constructor(private readonly logger: BroadcastLogger) {}

  /** `seen` and `other` came back with the same instance id from one roster refresh. */
  check(seen: RosterInstance, other: RosterInstance): void {
    if (seen.since === other.since || seen.groupId === other.groupId) return;
    const groups = [seen.groupId, other.groupId].sort();
    const key = `${seen.instanceId}\n${groups.join('\n')}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    const id = seen.instanceId;
    this.logger.warn(
      `Two live instances have the instance id "${id}", in groups ${groups[0]} and ${groups[1]}: ` +
        'give each its own instanceId (receipts and targeting go by it and see only one), unless ' +
        'one of them crashed and its member has not expired yet.',
      { instanceId: id, groups: groups.join(','), reason: 'duplicate instance id' },
    );
  }
}
