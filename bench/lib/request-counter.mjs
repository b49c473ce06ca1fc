// Counts every Kafka request this process's kafkajs clients send, by API, by wrapping kafkajs's
// Connection.send. Import it before kafkajs is used (fleet-profile.mjs, idle-requests.mjs).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const Connection = require('kafkajs/src/network/connection.js');
// Kafka API keys (protocol constants) of the requests our clients and R send.
const names = {
  0: 'Produce',
  1: 'Fetch',
  2: 'ListOffsets',
  3: 'Metadata',
  8: 'OffsetCommit',
  9: 'OffsetFetch',
  10: 'FindCoordinator',
  11: 'JoinGroup',
  12: 'Heartbeat',
  13: 'LeaveGroup',
  14: 'SyncGroup',
  15: 'DescribeGroups',
  16: 'ListGroups',
  18: 'ApiVersions',
  19: 'CreateTopics',
  42: 'DeleteGroups',
};
let counts = {};
const send = Connection.prototype.send;
Connection.prototype.send = function (args) {
  const api = names[args?.request?.apiKey] ?? args?.request?.apiKey;
  counts[api] = (counts[api] ?? 0) + 1;
  return send.apply(this, [args]);
};

/** Requests by API name since the last reset. */
export const requestCounts = () => ({ ...counts });
export const resetRequestCounts = () => void (counts = {});
