import kafkajs, { type PartitionAssigner } from 'kafkajs';

/**
 * kafkajs's round-robin assigner with the instance's description as the member's user data,
 * so describeGroups tells who holds each pool group (see the roster). The protocol name stays
 * `RoundRobinAssigner`, so members with and without user data can still share a group.
 */
export function memberInfoAssigner(userData: string): PartitionAssigner {
  return (config) => {
    const base = kafkajs.PartitionAssigners.roundRobin(config);
    return {
      ...base,
      protocol({ topics }) {
        return {
          name: base.name,
          metadata: kafkajs.AssignerProtocol.MemberMetadata.encode({
            version: base.version,
            topics,
            userData: Buffer.from(userData, 'utf8'),
          }),
        };
      },
    };
  };
}
