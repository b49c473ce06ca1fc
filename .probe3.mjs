import { startCluster } from './scripts/kafka-cluster.mjs';
let t = Date.now(); const lap = (s) => { console.log(new Date().toISOString(), s, Date.now() - t, 'ms'); t = Date.now(); };
const c = await startCluster({ nodes: 3, dir: '/tmp/k3', quiet: true }); lap('start3');
await c.killNode(3); lap('kill'); await c.startNode(3); lap('startNode');
await c.stop({ keepDir: true }); lap('stop');
