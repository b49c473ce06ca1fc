/**
 * What the operator CLI needs from Kafka. Only ../kafka implements it, so the CLI never
 * touches the client library.
 */

/** One member of a consumer group, as the coordinator describes it. */
export interface OperatorGroupMember {
  memberId: string;
  clientId: string;
  clientHost: string;
  /** The user data of the member's subscription metadata (this library's instances: MemberInfo JSON). */
  userData?: string;
}

/** The state of a group the client cannot describe (see OperatorGroup.state). */
export const UNKNOWN_GROUP_STATE = 'Unknown';

export interface OperatorGroup {
  groupId: string;
  /**
   * Stable, Empty, PreparingRebalance, CompletingRebalance, Assigning, Reconciling or Dead; or
   * `UNKNOWN_GROUP_STATE` when the client cannot describe the group (kafkajs and a KIP-848 group,
   * which DescribeGroups answers as 'Dead', no members): its members are then unknown, not none.
   */
  state: string;
  members: OperatorGroupMember[];
}

/** One record read by `tail`. */
export interface OperatorRecord {
  topic: string;
  partition: number;
  offset: string;
  /** Epoch ms. */
  timestamp: number;
  key: string | null;
  headers: Record<string, string>;
  value: string | null;
}

export interface OperatorReadOptions {
  /** Start at the first record at or after this epoch ms; default: only records written from now on. */
  since?: number;
  /** Stop once the high watermarks seen at the start are reached (default: follow until aborted). */
  toEnd?: boolean;
  signal?: AbortSignal;
  /** Called once reading is positioned: every record written from then on will be seen. */
  positioned?: () => void;
  onRecord: (record: OperatorRecord) => void;
}

export type OperatorDeleteOutcome = 'deleted' | 'not-found' | 'non-empty';

export interface OperatorKafkaPort {
  listGroupIds(): Promise<string[]>;
  describeGroups(groupIds: readonly string[]): Promise<OperatorGroup[]>;
  /** Deletes an empty group; the broker refuses a group that has members. */
  deleteGroup(groupId: string): Promise<OperatorDeleteOutcome>;
  publish(
    topic: string,
    record: { key: string | null; value: string; headers: Record<string, string> },
  ): Promise<{ partition: number; offset: string }>;
  /**
   * Reads a topic outside every pool group: through a throwaway consumer group of its own
   * (kafkajs cannot fetch without one), `<topic>.tail-<host>-<pid>-<random>`, that commits
   * nothing and is deleted afterwards.
   */
  read(topic: string, options: OperatorReadOptions): Promise<void>;
  disconnect(): Promise<void>;
}
