import { DataSource } from 'typeorm';
import { BroadcastEngine } from '@app/broadcast';
import { readFileSync } from 'node:fs';

const brokers = JSON.parse(readFileSync('.kafka/state.json', 'utf8')).brokers;
const prefix = `smoke${Date.now().toString(36)}.`;

it('three engines with pg locks each get every message', async () => {
  const ds = await new DataSource({ type: 'postgres', host: '127.0.0.1', port: 5432, username: 'postgres', database: 'test' }).initialize();
  const got: number[][] = [[], [], []];
  const engines = [0, 1, 2].map((i) =>
    new BroadcastEngine({ kafka: { brokers, clientId: `e${i}` }, topicPrefix: prefix, heartbeat: { intervalMs: 2000 } }, { dataSource: ds })
      .on<{ n: number }>('cache.evict', (p) => void got[i]!.push(p.n)),
  );
  const t0 = Date.now();
  await Promise.all(engines.map((e) => e.start()));
  console.log('ready in', Date.now() - t0, engines.map((e) => e.reader.status()));
  for (let n = 0; n < 100; n++) await engines[0]!.publisher.publish('cache.evict', { n });
  const deadline = Date.now() + 20000;
  while (got.some((g) => g.length < 100) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  console.log(got.map((g) => g.length), engines.map((e) => e.reader.status()));
  await Promise.all(engines.map((e) => e.stop()));
  await ds.destroy();
  expect(got.map((g) => g.length)).toEqual([100, 100, 100]);
});
