import {
  consumerGroupDescribeV0,
  createAPI,
  ResponseError,
  type Admin,
  type Reader,
} from '@platformatic/kafka';
import { type BrokerAddress, PlatformaticCoordinators } from './platformatic-coordinators.js';

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
/** KIP-848's APIs; v1 of the heartbeat (the member makes its own id) is Apache Kafka 4.0+. */
const CONSUMER_GROUP_HEARTBEAT = 68;
const CONSUMER_GROUP_DESCRIBE = 69;

/**
 * Whether ApiVersions lists the KIP-848 APIs (ConsumerGroupHeartbeat v1, ConsumerGroupDescribe).
 * Not enough on its own: a broker started with group.coordinator.rebalance.protocols=classic
 * (Apache Kafka 4.4) still lists them and answers UNSUPPORTED_VERSION.
 */
export async function listsConsumerGroupApis(admin: Admin): Promise<boolean> {
  return listsConsumerGroupApisIn(await admin.listApis());
}

/** The same, read from an ApiVersions answer already at hand (the connection probe's). */
export function listsConsumerGroupApisIn(apis: readonly BrokerApi[]): boolean {
  return (
    apis.some((a) => a.apiKey === CONSUMER_GROUP_HEARTBEAT && a.maxVersion >= 1) &&
    apis.some((a) => a.apiKey === CONSUMER_GROUP_DESCRIBE)
  );
}

/** One API of an ApiVersions answer. */
export interface BrokerApi {
  apiKey: number;
  maxVersion: number;
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
export function describeConsumerGroup(
  admin: Admin,
  groupId: string,
  coordinators: PlatformaticCoordinators = new PlatformaticCoordinators(admin),
): Promise<ConsumerGroupDescription> {
  return coordinators.request(groupId, async (coordinator) => {
    const connection = await admin.connections.get(coordinator);
    return describedGroup(groupId, await consumerGroupDescribe.async(connection, [groupId], false));
  });
}

/**
 * ConsumerGroupDescribe of several groups: one request per coordinator, naming all of its groups.
 * A request that fails (one group's coordinator moved, say) is made again group by group, so one
 * group's failure costs only that group: it is left out of the answer.
 */
export async function describeConsumerGroups(
  admin: Admin,
  groupIds: readonly string[],
  coordinators: PlatformaticCoordinators,
): Promise<Map<string, ConsumerGroupDescription>> {
  const byCoordinator = new Map<string, { address: BrokerAddress; groupIds: string[] }>();
  const described = new Map<string, ConsumerGroupDescription>();
  const alone: string[] = [];
  const addresses = await coordinators.ofAll(groupIds);
  for (const groupId of groupIds) {
    const address = addresses.get(groupId);
    if (!address) continue;
    const key = `${address.host}:${address.port}`;
    const batch = byCoordinator.get(key) ?? { address, groupIds: [] };
    batch.groupIds.push(groupId);
    byCoordinator.set(key, batch);
  }
  await Promise.all(
    [...byCoordinator.values()].map(async ({ address, groupIds: batch }) => {
      try {
        const connection = await admin.connections.get(address);
        const answer = await consumerGroupDescribe.async(connection, batch, false);
        for (const groupId of batch) described.set(groupId, describedGroup(groupId, answer));
      } catch {
        // The coordinator may have moved: each group is described alone, at a freshly found
        // one, once (a known coordinator would be tried once more).
        for (const groupId of batch) coordinators.forget(groupId);
        alone.push(...batch);
      }
    }),
  );
  // A group whose coordinator was not found is left out, as one whose describe fails alone.
  await Promise.all(
    alone.map(async (groupId) => {
      const one = await describeConsumerGroup(admin, groupId, coordinators).catch(() => undefined);
      if (one) described.set(groupId, one);
    }),
  );
  return described;
}

function describedGroup(
  groupId: string,
  { groups }: { groups: ParsedGroup[] },
): ConsumerGroupDescription {
  const group = groups.find((g) => g.groupId === groupId);
  if (!group || group.errorCode === GROUP_ID_NOT_FOUND)
    return { kind: 'other', message: group?.errorMessage ?? 'not found' };
  return { kind: 'consumer', state: group.groupState, members: group.members };
}
