/** One live instance, as the roster sees it. */
export interface RosterInstance {
  /** The instance's `instanceId` option (default hostname-pid-random). */
  readonly instanceId: string;
  /** The group base name (`groupBaseName`): what targeting calls a service. */
  readonly service: string;
  /** The consumer group it reads through, prefix included. */
  readonly groupId: string;
  /** The pool id `n` of its group (the advisory lock id in lock mode). */
  readonly lockId: number;
  readonly libraryVersion: string;
  /** Logical topics it reads (without the topic prefix). */
  readonly topics: readonly string[];
  /** When it started (its own clock, epoch ms). */
  readonly since: number;
  /** Whether it answers receipts (false with the option `receipts: false`). */
  readonly receipts: boolean;
  /** When the roster last saw it (this instance's clock, epoch ms). */
  readonly lastSeen: number;
}

/** A `join` or `leave` of the roster. */
export type RosterEvent = 'join' | 'leave';

/** One member of one pool group, as the broker describes it. */
export interface LiveGroupMember {
  groupId: string;
  memberId: string;
  /** Topics the member subscribed to (full names). */
  topics: string[];
  /** The member's user data, as the engine wrote it at join, or undefined. */
  userData: string | undefined;
}
