// KIP-848 groups (the @platformatic/kafka adapter's default on a broker that offers them) answer
// DescribeGroups with 'Dead' and no members; ConsumerGroupDescribe lists them. The sampler asks
// it for such groups with the BUILT library's parser (the one the adapter uses) and its own
// @platformatic/kafka Admin, so "two instances in one group" is checked on both kinds of group.

/**
 * Returns `{ describe(groupId), close() }`: describe gives `{ state, members: [{ clientId }] }`
 * of a KIP-848 group, or undefined for any other (classic, unknown).
 */
export async function consumerGroupDescriber(brokers) {
  const lib = process.env.BROADCAST_LIB || import.meta.resolve('nestjs-kafka-broadcast');
  const { describeConsumerGroup } = await import(
    new URL('./adapters/platformatic/platformatic-consumer-group-describe.js', lib).href
  );
  const { Admin } = await import('@platformatic/kafka');
  const admin = new Admin({ clientId: 'soak-sampler-kip848', bootstrapBrokers: [...brokers] });
  return {
    async describe(groupId) {
      const described = await describeConsumerGroup(admin, groupId);
      return described.kind === 'consumer'
        ? { state: described.state, members: described.members }
        : undefined;
    },
    close: () => admin.close(),
  };
}
