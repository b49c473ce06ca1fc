/**
 * A member of an in-memory consumer group, as the broker sees it: a consumer of this process (an
 * engine's, or one a test drives by hand) or a foreign member id a test put in the group.
 */
export interface InMemoryGroupMember {
  readonly groupId: string;
  /** The broker's member id, from the first join on. */
  memberId: string | undefined;
  /** The subscribed topics: the partitions of each are shared out among their subscribers. */
  readonly topics: readonly string[];
  /** The user data given at join (the engine's member info). */
  readonly userData: string | undefined;
  /** Whether every record of its partitions was handed over, nothing in flight (settled()). */
  readonly caughtUp: boolean;
  /** Called by the broker at each rebalance of the group. */
  assigned(memberId: string, assignment: Map<string, number[]>, leader: boolean): void;
  /** New records were appended or the log changed. */
  notify(): void;
  /** The coordinator removed it (a fence, an expired session): it crashes and hands nothing over. */
  fenced?(error: Error): void;
}
