// A private one-node Kafka broker whose clients can be made to go through a fault-injecting
// proxy (tcp-proxy.mjs). Brokers hand out their advertised address in metadata, so a proxy in
// front of the usual listener would be bypassed after the bootstrap. This broker gets a second
// listener, PROXIED, whose advertised address is the proxy's port; the proxy forwards to that
// listener's real port. Clients that bootstrap at `proxied` are told the proxy's address and stay
// on it; clients that bootstrap at `direct` (the test's admin and producer) never see the proxy.
// Plain JavaScript (types in proxied-broker.d.mts): the seam tests and scripts/soak.mjs use it.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster } from '../../../scripts/kafka-cluster.mjs';
import { TcpProxy } from './tcp-proxy.mjs';

export async function startProxiedBroker({ dirPrefix = 'proxied-kafka-', properties = {} } = {}) {
  const cluster = await startCluster({
    nodes: 1,
    quiet: true,
    dir: await mkdtemp(join(tmpdir(), dirPrefix)),
    extraPorts: 2,
    properties: (node) => ({
      listeners: `PLAINTEXT://127.0.0.1:${node.port},PROXIED://127.0.0.1:${node.extraPorts[0]},CONTROLLER://127.0.0.1:${node.controllerPort}`,
      'advertised.listeners': `PLAINTEXT://127.0.0.1:${node.port},PROXIED://127.0.0.1:${node.extraPorts[1]}`,
      'listener.security.protocol.map':
        'PLAINTEXT:PLAINTEXT,PROXIED:PLAINTEXT,CONTROLLER:PLAINTEXT',
      ...properties,
    }),
  });
  const node = cluster.nodes[0];
  const proxy = await TcpProxy.start({
    port: node.extraPorts[1],
    target: { host: '127.0.0.1', port: node.extraPorts[0] },
    kafka: true,
  });
  return {
    cluster,
    proxy,
    direct: cluster.brokers,
    proxied: [`127.0.0.1:${proxy.port}`],
    // Fetch from v13 (@platformatic/kafka's) names a topic by its id; kafkajs's Metadata (v6)
    // does not carry ids, so this asks with the other client.
    async topicId(topic) {
      const { Admin } = await import('@platformatic/kafka');
      const admin = new Admin({
        clientId: 'proxied-broker-topic-id',
        bootstrapBrokers: cluster.brokers,
      });
      try {
        const id = (await admin.metadata({ topics: [topic] })).topics.get(topic)?.id;
        if (!id) throw new Error(`no topic id for ${topic}`);
        return id;
      } finally {
        await admin.close();
      }
    },
    async stop() {
      await proxy.close();
      await cluster.stop();
    },
  };
}
