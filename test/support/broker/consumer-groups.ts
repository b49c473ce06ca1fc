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

/** A group's state and member ids, whatever its protocol. */
export interface GroupView {
  state: string;
  memberIds: string[];
}

/**
 * The state and member ids of `groupIds`, of either protocol: DescribeGroups (one request for
 * all), then ConsumerGroupDescribe for each group it calls 'Dead' (a KIP-848 group looks dead to
 * it). `viewer` defaults to a throwaway one on `brokers`.
 */
export async function describeGroupsOfEitherProtocol(
  admin: { describeGroups(groupIds: string[]): Promise<{ groups: DescribedGroup[] }> },
  groupIds: readonly string[],
  kip848: { brokers: readonly string[] } | ReturnType<typeof consumerGroupViewer>,
): Promise<Map<string, GroupView>> {
  const { groups } = await admin.describeGroups([...groupIds]);
  const views = new Map<string, GroupView>(
    groupIds.map((groupId) => [groupId, { state: 'Dead', memberIds: [] }]),
  );
  for (const g of groups)
    views.set(g.groupId, { state: g.state, memberIds: g.members.map((m) => m.memberId) });
  const dead = [...views].filter(([, v]) => v.state === 'Dead').map(([groupId]) => groupId);
  if (dead.length === 0) return views;
  const viewer = 'view' in kip848 ? kip848 : consumerGroupViewer(kip848.brokers);
  try {
    for (const groupId of dead) {
      const view = await viewer.view(groupId);
      if (view) views.set(groupId, { state: view.state, memberIds: view.memberIds });
    }
  } finally {
    if (viewer !== kip848) await viewer.close();
  }
  return views;
}

interface DescribedGroup {
  groupId: string;
  state: string;
  members: { memberId: string }[];
}
