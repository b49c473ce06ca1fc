// Types for test/support/broker/proxied-broker.mjs.
import type { KafkaCluster } from '../../../scripts/kafka-cluster.mjs';
import type { TcpProxy } from './tcp-proxy.mjs';

export interface ProxiedBroker {
  cluster: KafkaCluster;
  /** the Kafka-aware proxy every `proxied` client goes through */
  proxy: TcpProxy;
  /** the real PLAINTEXT listener: for a test's own admin and producer */
  direct: string[];
  /** the proxy: clients that bootstrap here stay here */
  proxied: string[];
  /** the topic's id (8-4-4-4-12 hex), how Fetch names it from v13 */
  topicId(topic: string): Promise<string>;
  stop(): Promise<void>;
}

export declare function startProxiedBroker(options?: {
  dirPrefix?: string;
  /** server properties on top of the test broker's (scripts/kafka/config.mjs) */
  properties?: Record<string, string | number | boolean>;
}): Promise<ProxiedBroker>;
