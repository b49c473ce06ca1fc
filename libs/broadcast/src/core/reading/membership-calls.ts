import { errorMessage } from '../../shared/async.utils.js';
import type { GroupConsumerPort } from '../../interfaces/kafka-port.interface.js';
import type { Assignment, MembershipContext } from './membership.types.js';

// What a membership asks of the broker and writes to the log (see GroupMembership).

/**
 * Every assigned partition, at every join (first join, rebalance, rejoin after a crash), is
 * read from the engine's own position: whatever a member that briefly shared the group
 * committed, or whether anything was committed at all, never matters.
 */
export function seekAll(
  consumer: GroupConsumerPort,
  ctx: MembershipContext,
  assignment: Assignment,
): void {
  for (const [topic, partitions] of assignment) {
    for (const partition of partitions) {
      consumer.seek(topic, partition, ctx.positionOf(topic, partition));
    }
  }
}

/** The group's member ids as the broker lists them now; undefined when the describe failed. */
export async function describeMembers(
  ctx: MembershipContext,
  groupId: string,
): Promise<string[] | undefined> {
  try {
    return (await ctx.kafka.admin.describeGroup(groupId)).memberIds;
  } catch (error) {
    ctx.logger.warn(`describeGroups(${groupId}) failed: ${errorMessage(error)}`, {
      group: groupId,
      reason: errorMessage(error),
    });
    return undefined;
  }
}

/** The log line of each step of a contest over a group (see GroupMembership). */
export function logContest(
  ctx: MembershipContext,
  group: string,
  what: 'joined' | 'joined together' | 'left',
  foreign: string[],
): void {
  const { logger } = ctx;
  const [members, list] = [foreign.join(','), foreign.join(', ')];
  if (what === 'left')
    logger.log(`Member(s) ${list} left ${group}; keeping it`, {
      group,
      reason: 'foreign member left',
      members,
    });
  else if (what === 'joined')
    logger.warn(
      `Member(s) ${list} of another instance joined ${group}; waiting for them to leave`,
      { group, reason: 'foreign member', members },
    );
  else
    logger.debug?.(
      `Joined ${group} together with member(s) ${list}; as the leader, waiting for them to leave`,
      { group, reason: 'joined together', members },
    );
}
