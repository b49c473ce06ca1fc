// KIP-848 groups (kafka.groupProtocol 'consumer', the @platformatic/kafka adapter's default on a
// broker that offers it) are invisible to DescribeGroups: it answers 'Dead' with no members. The
// harness's group views ask ConsumerGroupDescribe then, as the @platformatic/kafka adapter does,
// so the conformance specs see the members of both kinds of group.
import { Admin } from '@platformatic/kafka';
import { describeConsumerGroup } from '../../../libs/broadcast/src/adapters/platformatic/platformatic-consumer-group-describe.js';

export interface ConsumerGroupView {
  state: string;
  memberIds: string[];
  /** Each member's id and the topics it subscribed to. */
  members: { memberId: string; topics: string[] }[];
}

/** A reusable ConsumerGroupDescribe client (one admin connection), e.g. for a sampler. */
export function consumerGroupViewer(brokers: readonly string[]) {
  const admin = new Admin({ clientId: 'test-consumer-groups', bootstrapBrokers: [...brokers] });
  return {
    /** The group's state and member ids if it is a KIP-848 group; undefined otherwise. */
    async view(groupId: string): Promise<ConsumerGroupView | undefined> {
      const described = await describeConsumerGroup(admin, groupId).catch(() => undefined);
      if (described?.kind !== 'consumer') return undefined;
      const state = described.state.charAt(0).toUpperCase() + described.state.slice(1);
      return {
        state,
        memberIds: described.members.map((m) => m.memberId),
        members: described.members.map((m) => ({
          memberId: m.memberId,
          topics: m.subscribedTopicNames,
        })),
      };
    },
    close: () => admin.close(),
  };
}

/** The group's state and member ids if it is a KIP-848 group; undefined otherwise. */
export async function consumerGroupView(
  brokers: readonly string[],
  groupId: string,
): Promise<ConsumerGroupView | undefined> {
  const viewer = consumerGroupViewer(brokers);
  try {
    return await viewer.view(groupId);
  } finally {
    await viewer.close();
  }
}
