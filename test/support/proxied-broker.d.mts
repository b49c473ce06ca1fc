// Types for test/support/proxied-broker.mjs.
import type { KafkaCluster } from '../../scripts/kafka-cluster.mjs';
import type { TcpProxy } from './tcp-proxy.mjs';

export interface ProxiedBroker {
  cluster: KafkaCluster;
  /** the Kafka-aware proxy every `proxied` client goes through */
  proxy: TcpProxy;
  /** the real PLAINTEXT listener: for a test's own admin and producer */
  direct: string[];
  /** the proxy: clients that bootstrap here stay here */
  proxied: string[];
  stop(): Promise<void>;
}

export declare function startProxiedBroker(options?: {
  dirPrefix?: string;
}): Promise<ProxiedBroker>;
