import { brokerState } from './platformatic-group-state.js';

describe('brokerState', () => {
  it.each([
    ['PREPARINGREBALANCE', 'PreparingRebalance'], // 1.35's DescribeGroups
    ['PreparingRebalance', 'PreparingRebalance'], // 2.12's DescribeGroups
    ['COMPLETINGREBALANCE', 'CompletingRebalance'],
    ['DEAD', 'Dead'],
    ['Dead', 'Dead'],
    ['stable', 'Stable'], // ConsumerGroupDescribe
    ['assigning', 'Assigning'],
    ['PREPARING_REBALANCE', 'PreparingRebalance'],
    ['SomethingNew', 'SomethingNew'], // a state this list does not know: passed on as is
  ])('%s is %s', (given, expected) => {
    expect(brokerState(given)).toBe(expected);
  });
});
