// The soak's own one-node broker, with a second listener advertised at a fault-injecting proxy:
// the instances bootstrap through the proxy and metadata keeps them on it; the soak's producer,
// admin and stray consumer use the real listener.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster } from '../kafka-cluster.mjs';
import { TcpProxy } from '../../test/support/tcp-proxy.mjs';

export async function startSoakBroker() {
  const cluster = await startCluster({
    nodes: 1,
    quiet: true,
    dir: await mkdtemp(join(tmpdir(), 'soak-kafka-')),
    extraPorts: 2,
    properties: (node) => ({
      listeners: `PLAINTEXT://127.0.0.1:${node.port},PROXIED://127.0.0.1:${node.extraPorts[0]},CONTROLLER://127.0.0.1:${node.controllerPort}`,
      'advertised.listeners': `PLAINTEXT://127.0.0.1:${node.port},PROXIED://127.0.0.1:${node.extraPorts[1]}`,
      'listener.security.protocol.map':
        'PLAINTEXT:PLAINTEXT,PROXIED:PLAINTEXT,CONTROLLER:PLAINTEXT',
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
    async stop() {
      await proxy.close();
      await cluster.stop();
    },
  };
}
