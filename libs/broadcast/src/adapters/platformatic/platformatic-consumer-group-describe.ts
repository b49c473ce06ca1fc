import {
  consumerGroupDescribeV0,
  createAPI,
  ResponseError,
  type Admin,
  type Reader,
} from '@platformatic/kafka';

/** A member of a KIP-848 consumer group, as ConsumerGroupDescribe lists it. */
export interface ConsumerGroupMember {
  memberId: string;
  /** The rack id the member sent in its heartbeats (this adapter puts the member info there). */
  rackId: string | null;
  clientId: string;
  /** The member's address as the broker saw it ('/127.0.0.1'). */
  clientHost: string;
  subscribedTopicNames: string[];
}

/**
 * What ConsumerGroupDescribe says about one group: a consumer (KIP-848) group with its members,
 * or `other`: no such consumer group (it does not exist, or it is a classic group, which only
 * DescribeGroups sees; the error code is the same, GROUP_ID_NOT_FOUND).
 */
export type ConsumerGroupDescription =
  | { kind: 'consumer'; state: string; members: ConsumerGroupMember[] }
  | { kind: 'other'; message: string };

const GROUP_ID_NOT_FOUND = 69;
const GROUP_KEY = 0;
/** KIP-848's APIs; v1 of the heartbeat (the member makes its own id) is Apache Kafka 4.0+. */
const CONSUMER_GROUP_HEARTBEAT = 68;
const CONSUMER_GROUP_DESCRIBE = 69;

/**
 * Whether ApiVersions lists the KIP-848 APIs (ConsumerGroupHeartbeat v1, ConsumerGroupDescribe).
 * Not enough on its own: a broker started with group.coordinator.rebalance.protocols=classic
 * (Apache Kafka 4.4) still lists them and answers UNSUPPORTED_VERSION.
 */
export async function listsConsumerGroupApis(admin: Admin): Promise<boolean> {
  const apis = await admin.listApis();
  return (
    apis.some((a) => a.apiKey === CONSUMER_GROUP_HEARTBEAT && a.maxVersion >= 1) &&
    apis.some((a) => a.apiKey === CONSUMER_GROUP_DESCRIBE)
  );
}

interface ParsedGroup {
  errorCode: number;
  errorMessage: string | null;
  groupId: string;
  groupState: string;
  members: ConsumerGroupMember[];
}

/**
 * ConsumerGroupDescribe v0, parsed here: @platformatic/kafka 1.35's own parser (and 2.9's)
 * reads `subscribed_topic_names` as one string instead of an array and skips the assignment
 * structs' tagged fields, so it fails with "Out of bounds" on every group that has a member.
 * 2.12.1's reads the array (apis/admin/consumer-group-describe-v0.js:72); this one stays while the
 * peer range keeps 1.35, and serves both lines.
 */
export function parseResponse(
  _correlationId: number,
  apiKey: number,
  apiVersion: number,
  reader: Reader,
): { groups: ParsedGroup[] } {
  const errors: [string, [number, string | null]][] = [];
  reader.readInt32(); // throttle_time_ms
  const groups = reader.readArray((r, i) => {
    const errorCode = r.readInt16();
    const errorMessage = r.readNullableString();
    if (errorCode !== 0) errors.push([`/groups/${i}`, [errorCode, errorMessage]]);
    const groupId = r.readString();
    const groupState = r.readString();
    r.readInt32(); // group_epoch
    r.readInt32(); // assignment_epoch
    r.readString(); // assignor_name
    const members = r.readArray((m) => {
      const memberId = m.readString();
      m.readNullableString(); // instance_id
      const rackId = m.readNullableString();
      m.readInt32(); // member_epoch
      const clientId = m.readString();
      const clientHost = m.readString();
      const subscribedTopicNames = m.readArray((t) => t.readString(), true, false);
      m.readNullableString(); // subscribed_topic_regex
      skipAssignment(m); // assignment
      skipAssignment(m); // target_assignment
      return { memberId, rackId, clientId, clientHost, subscribedTopicNames };
    });
    r.readInt32(); // authorized_operations
    return { errorCode, errorMessage, groupId, groupState, members };
  });
  // The other group errors (coordinator moving or loading, ACLs) are thrown, as the client does.
  const fatal = errors.filter(([, [code]]) => code !== GROUP_ID_NOT_FOUND);
  if (fatal.length > 0)
    throw new ResponseError(apiKey, apiVersion, Object.fromEntries(fatal), { groups });
  return { groups };
}

/** An Assignment struct: [topic_partitions] TAG_BUFFER, each topic_id topic_name [partitions]. */
function skipAssignment(r: Reader): void {
  r.readArray((t) => {
    t.readUUID();
    t.readString();
    t.readArray(() => t.readInt32(), true, false);
  });
  r.readTaggedFields();
}

const consumerGroupDescribe = createAPI<[string[], boolean], { groups: ParsedGroup[] }>(
  69,
  0,
  consumerGroupDescribeV0.createRequest,
  parseResponse,
);

/**
 * ConsumerGroupDescribe of one group, sent to its coordinator through the admin's connections
 * (its Admin has no method for it). Classic DescribeGroups answers 'Dead' for these groups.
 */
export async function describeConsumerGroup(
  admin: Admin,
  groupId: string,
): Promise<ConsumerGroupDescription> {
  const [coordinator] = await admin.findCoordinator({ keyType: GROUP_KEY, keys: [groupId] });
  if (!coordinator) throw new Error(`no coordinator found for group ${groupId}`);
  const connection = await admin.connections.get({
    host: coordinator.host,
    port: coordinator.port,
  });
  const { groups } = await consumerGroupDescribe.async(connection, [groupId], false);
  const group = groups.find((g) => g.groupId === groupId);
  if (!group || group.errorCode === GROUP_ID_NOT_FOUND)
    return { kind: 'other', message: group?.errorMessage ?? 'not found' };
  return { kind: 'consumer', state: group.groupState, members: group.members };
}
