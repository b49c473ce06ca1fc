import { startCluster } from './scripts/kafka-cluster.mjs';
let t = Date.now(); const lap = (s) => { console.log(s, Date.now() - t, 'ms'); t = Date.now(); };
const c = await startCluster({ nodes: 3 }); lap('start3');
console.log(c.nodes.map(n => n.pid));
await c.killNode(3); lap('kill'); await c.startNode(3); lap('startNode');
await c.stopNode(2); lap('stopNode'); await c.startNode(2); lap('startNode2');
await c.stop(); lap('stop');
