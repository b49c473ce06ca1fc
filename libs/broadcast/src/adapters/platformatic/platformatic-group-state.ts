/** The group states the broker reports, in its own spelling (as kafkajs passes them on). */
const BROKER_STATES = [
  'Stable',
  'Empty',
  'PreparingRebalance',
  'CompletingRebalance',
  'Assigning',
  'Reconciling',
  'NotReady',
  'Dead',
];

/**
 * A group state in the broker's spelling, however the client passed it on: 1.35 upper-cases
 * DescribeGroups' 'PreparingRebalance' to 'PREPARINGREBALANCE', 2.12 passes it as is, and
 * ConsumerGroupDescribe spells its states in lower case ('stable', 'assigning').
 */
export function brokerState(state: string): string {
  const key = state.replaceAll('_', '').toLowerCase();
  return BROKER_STATES.find((known) => known.toLowerCase() === key) ?? state;
}
