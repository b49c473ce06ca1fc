// The fault-injecting TCP proxy for TypeScript tests. It is written in plain JavaScript
// (tcp-proxy.mjs, typed by tcp-proxy.d.mts) because scripts/soak.mjs runs it too, under plain
// Node; this module is the entry point the specs import.
export { TcpProxy, type FaultAction, type FrameInfo, type TcpProxyOptions } from './tcp-proxy.mjs';
export {
  ApiKey,
  ErrorCode,
  FrameSplitter,
  fetchResponsePartitions,
  requestHeader,
  responseCorrelationId,
  withFetchPartitionError,
} from './kafka-frames.mjs';
