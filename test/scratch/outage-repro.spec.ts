import { setTimeout as delay } from 'node:timers/promises';
import { join } from 'node:path';
import { startCluster, REPO_ROOT, type KafkaCluster } from '../../scripts/kafka-cluster.mjs';
import { ensureLibBuilt } from '../support/faults/faults.js';
import { Instances } from '../support/faults/instances.js';
import { testPrefix } from '../support/broker/kafka.js';

const fleet = new Instances();
let cluster: KafkaCluster | undefined;
const PROD = {
  'group.initial.rebalance.delay.ms': 3000,
  'group.min.session.timeout.ms': 6000,
  'group.consumer.min.session.timeout.ms': 45000,
  'group.consumer.session.timeout.ms': 45000,
  'group.consumer.min.heartbeat.interval.ms': 5000,
  'group.consumer.heartbeat.interval.ms': 5000,
};
beforeAll(async () => {
  ensureLibBuilt();
  cluster = await startCluster({ nodes: 1, quiet: true, properties: () => PROD });
});
afterAll(async () => {
  await fleet.killAll();
  await cluster?.stop();
});

it('repro', async () => {
  const brokers = cluster!.brokers;
  const prefix = testPrefix('outage-repro');
  const rows = [
    { client: 'kafkajs' },
    { client: 'platformatic', groupProtocol: 'consumer' },
  ];
  const instances = rows.flatMap((kafka, r) =>
    ['a', 'b'].map((n) =>
      fleet.spawn({
        name: `${r}${n}`,
        runner: join(REPO_ROOT, 'test/support/faults/outage-child.mjs'),
        brokers,
        prefix: `${prefix}r${r}.`,
        lock: 'none',
        topics: ['news'],
        kafka,
      }),
    ),
  );
  await Promise.all(instances.map((i) => i.ready(120_000)));
  await cluster!.stopNode(1);
  const downAt = Date.now();
  await delay(20_000);
  await cluster!.startNode(1);
  const upAt = Date.now();
  await delay(60_000);
  for (const i of instances) {
    console.log(i.name, 'alive', i.alive, i.exit, 'down+', i.exit ? i.exit.at - downAt : '', 'up+', i.exit ? i.exit.at - upAt : '');
    console.log(i.diagnostics(15));
  }
});
