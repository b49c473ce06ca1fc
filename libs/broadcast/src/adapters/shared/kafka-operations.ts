import type { KafkaOperation } from './adapter-types.js';

/**
 * The operations both adapters name when the broker refuses one, so the error names the ACL the
 * principal lacks: joining a group and reading its topics, and publishing.
 */
export function consumingOperation(spec: {
  groupId: string;
  topics: readonly string[];
}): KafkaOperation {
  return {
    operation: 'join and consume',
    acl: { group: 'READ', topic: 'READ' },
    groupId: spec.groupId,
    topics: spec.topics,
  };
}

export function publishingOperation(topic: string): KafkaOperation {
  return { operation: 'publish', acl: { topic: 'WRITE' }, topics: [topic] };
}
