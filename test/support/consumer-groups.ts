// KIP-848 groups (kafka.groupProtocol 'consumer') are invisible to DescribeGroups: it answers
// 'Dead' with no members. The harness's group views ask ConsumerGroupDescribe then, as the
// @platformatic/kafka adapter does, so the conformance specs also run with
// BROADCAST_GROUP_PROTOCOL=consumer.
import { Admin } from '@platformatic/kafka';
import { describeConsumerGroup } from '../../libs/broadcast/src/kafka-platformatic/platformatic-consumer-group-describe.js';

/** The group's state and member ids if it is a KIP-848 group; undefined otherwise. */
export async function consumerGroupView(
  brokers: readonly string[],
  groupId: string,
): Promise<{ state: string; memberIds: string[] } | undefined> {
  const admin = new Admin({ clientId: 'test-consumer-groups', bootstrapBrokers: [...brokers] });
  try {
    const described = await describeConsumerGroup(admin, groupId).catch(() => undefined);
    if (described?.kind !== 'consumer') return undefined;
    const state = described.state.charAt(0).toUpperCase() + described.state.slice(1);
    return { state, memberIds: described.members.map((m) => m.memberId) };
  } finally {
    await admin.close();
  }
}
