import type { Admin } from '@platformatic/kafka';
import type { OperatorGroup } from '../../interfaces/broadcast-operator.interface.js';
import { brokerState } from './platformatic-group-state.js';
import { describeConsumerGroup } from './platformatic-consumer-group-describe.js';
import { hasProtocolError } from './platformatic-errors.js';

/**
 * The operator CLI's views of the consumer groups, of both protocols. ListGroups without a type
 * lists only classic groups on this client, so KIP-848 ('consumer') groups are asked for when the
 * broker lists the KIP-848 APIs (`kip848`); a broker without them refuses the type filter.
 */
export async function listGroupIdsOfBothProtocols(
  admin: Admin,
  kip848: boolean,
): Promise<string[]> {
  const listed = await admin.listGroups(kip848 ? { types: ['classic', 'consumer'] } : undefined);
  return [...listed.keys()];
}

/**
 * Describes groups with DescribeGroups, then every group it answers 'Dead' for (KIP-848 groups
 * look so to it) with ConsumerGroupDescribe when `kip848`. A KIP-848 member carries this library's
 * member info as its rack id (no user data exists under KIP-848), so it is the member's userData.
 */
export async function describeGroupsOfBothProtocols(
  admin: Admin,
  groupIds: readonly string[],
  kip848: boolean,
): Promise<OperatorGroup[]> {
  if (groupIds.length === 0) return [];
  const described = await admin.describeGroups({ groups: [...groupIds] });
  return Promise.all(
    groupIds.map(async (groupId): Promise<OperatorGroup> => {
      const group = described.get(groupId);
      const classic: OperatorGroup = {
        groupId,
        // The broker's own spelling ('Stable', 'Empty', 'Dead'), as kafkajs reports it.
        state: brokerState(group?.state ?? 'DEAD'),
        members: [...(group?.members.values() ?? [])].map((m) => {
          const userData = m.metadata?.metadata;
          return {
            memberId: m.id,
            clientId: m.clientId,
            clientHost: m.clientHost.replace(/^\//, ''),
            userData: userData?.length ? Buffer.from(userData).toString('utf8') : undefined,
          };
        }),
      };
      if (classic.state !== 'Dead' || !kip848) return classic;
      const consumer = await describeConsumerGroup(admin, groupId).catch((error: unknown) => {
        // The broker lists the APIs but has the protocol disabled: no KIP-848 group exists.
        if (hasProtocolError(error, 'UNSUPPORTED_VERSION')) return undefined;
        throw error;
      });
      if (consumer?.kind !== 'consumer') return classic;
      return {
        groupId,
        state: brokerState(consumer.state),
        members: consumer.members.map((m) => ({
          memberId: m.memberId,
          clientId: m.clientId,
          clientHost: m.clientHost.replace(/^\//, ''),
          userData: m.rackId ?? undefined,
        })),
      };
    }),
  );
}
