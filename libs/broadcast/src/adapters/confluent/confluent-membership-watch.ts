import { pause } from '../../shared/async.utils.js';
import type { OwnMember } from './confluent-admin.js';

/** The same membership: this member's id and the group's member ids. */
function sameMembership(a: OwnMember | undefined, b: OwnMember): boolean {
  if (!a || a.memberId !== b.memberId || a.memberIds.length !== b.memberIds.length) return false;
  const ids = new Set(a.memberIds);
  return b.memberIds.every((id) => ids.has(id));
}

/**
 * A KIP-848 consumer's membership, watched through the admin. librdkafka calls the rebalance
 * callback only when this member's partitions change: a member assigned nothing (a second member
 * of a one-partition group) never hears its join, and a member whose partitions stay hears
 * nothing when another member joins or leaves (the binding tells no member epoch). The port's
 * contract wants every membership change, so the watch asks the admin for the group's members
 * every interval and reports a change of the member set, or this member's first listing.
 * Each ask is one DescribeGroups (ConsumerGroupDescribe) of this group.
 */
export class ConfluentMembershipWatch {
  private last: OwnMember | undefined;
  private stopped = false;
  private readonly ended = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(
    /** This member and the group's members, undefined while the coordinator does not list it. */
    private readonly ask: () => Promise<OwnMember | undefined>,
    private readonly intervalMs: number,
    /** Called with a membership not reported before (by `seen` or an earlier call). */
    private readonly changed: (member: OwnMember) => void,
  ) {}

  /** Whether this membership differs from the last one reported. */
  isNew(member: OwnMember): boolean {
    return !sameMembership(this.last, member);
  }

  /** Records a membership reported to the engine (by a rebalance or this watch). */
  seen(member: OwnMember): void {
    this.last = member;
  }

  start(): void {
    this.loop ??= this.watch();
  }

  /** Ends the watch once its ask in flight (bounded by the admin's timeout) has answered. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.ended.abort();
    await this.loop;
  }

  private async watch(): Promise<void> {
    while (!this.stopped) {
      await pause(this.intervalMs, this.ended.signal);
      if (this.stopped) return;
      // A failed ask is asked again at the next interval.
      const member = await this.ask().catch(() => undefined);
      if (member && !this.stopped && this.isNew(member)) this.changed(member);
    }
  }
}
