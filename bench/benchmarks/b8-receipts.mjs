// 8. Receipt round trip: publish → every instance's acknowledgement back at the publisher, for 10
// instances in ONE process (one clock), against a plain publish of the same message in the same run.
// Once per adapter (kafkajs, then @platformatic/kafka), each with its own ten engines; every publish
// is traced along its path (lib/receipt-trace.mjs) to tell where a receipt's time goes.
import {
  createTopics,
  newDataSource,
  now,
  ratio,
  sleep,
  summary,
  waitFor,
} from '../lib/common.mjs';
import { createEngine } from '../lib/ours.mjs';
import { receiptTrace } from '../lib/receipt-trace.mjs';

export const id = '8';
export const title = 'Receipt round trip (publish → all acks), 10 instances, per adapter';
const TOPIC = 'receipts';
const RECEIPTS_TOPIC = 'broadcast.receipts.v1';
const CLIENTS = (process.env.BENCH_B8_CLIENTS ?? 'kafkajs,platformatic').split(',');

export async function run(ctx) {
  const repeats = ctx.quick ? 20 : 100;
  const samples = {};
  const breakdown = {};
  const rows = [];
  for (const client of CLIENTS) {
    const prefix = `${ctx.prefix(id)}${client}-`;
    const result = await runClient(ctx, client, prefix, repeats);
    samples[client] = result.samples;
    breakdown[client] = result.breakdown;
    rows.push(...result.rows);
  }
  return { samples, breakdown, rows };
}

async function runClient(ctx, client, prefix, repeats) {
  const n = 10;
  await createTopics(ctx.brokers, [
    prefix + TOPIC,
    prefix + RECEIPTS_TOPIC,
    prefix + 'broadcast.heartbeat.v1',
  ]);
  const dataSources = await Promise.all(Array.from({ length: n }, () => newDataSource()));
  const trace = receiptTrace({
    dataTopic: prefix + TOPIC,
    receiptsTopic: prefix + RECEIPTS_TOPIC,
    publisherId: 'i0',
  });
  let handled = 0;
  const engines = dataSources.map((dataSource, i) =>
    createEngine({
      brokers: ctx.brokers,
      prefix,
      dataSource,
      client,
      clientId: `bench-receipts-${i}`,
      instanceId: `i${i}`,
      tap: trace.tap(`i${i}`),
    }).on(TOPIC, () => {
      trace.handled(`i${i}`);
      handled++;
    }),
  );
  const plainAck = [];
  const plainAll = [];
  const receiptAll = [];
  const rosterRefresh = [];
  try {
    await Promise.all(engines.map((e) => e.start()));
    const publisher = engines[0].publisher;
    // Warm-up: connections, the roster seeing all ten, a few receipts.
    if (!(await waitFor(async () => (await engines[0].roster.refresh()).length === n, 20_000)))
      throw new Error('the roster never listed all 10 instances');
    for (let i = 0; i < 10; i++) await publisher.publish(TOPIC, { w: i }, { receipts: true });
    for (let i = 0; i < repeats; i++) {
      // Plain: until the broker acknowledged, and until every instance's handler ran.
      const before = handled;
      trace.begin('plain');
      const t0 = now();
      await publisher.publish(TOPIC, { i });
      plainAck.push(now() - t0);
      if (!(await waitFor(() => handled >= before + n, 10_000, 0.2)))
        throw new Error('a plain broadcast did not reach all 10 instances');
      plainAll.push(now() - t0);
      trace.end();
      await sleep(20);
      // With receipts: until every acknowledgement is back at the publisher.
      trace.begin('receipt');
      const t1 = now();
      const receipt = await publisher.publish(TOPIC, { i }, { receipts: { timeoutMs: 10_000 } });
      receiptAll.push(now() - t1);
      trace.end();
      if (receipt.ok.length !== n) throw new Error(`receipt ok ${receipt.ok.length}/${n}`);
      const t2 = now();
      await engines[0].roster.refresh();
      rosterRefresh.push(now() - t2);
      await sleep(20);
    }
  } finally {
    await Promise.all(engines.map((e) => e.stop()));
    await Promise.all(dataSources.map((d) => d.destroy()));
  }
  const r = summary(receiptAll);
  const pAll = summary(plainAll);
  const pAck = summary(plainAck);
  return {
    samples: { plainAck, plainAll, receiptAll, rosterRefresh },
    breakdown: trace.breakdown(),
    rows: [
      {
        metric: `${client}: publish with receipts → all ${n} acks (vs plain publish → all ${n} handlers ran)`,
        unit: 'ms',
        ours: r,
        base: pAll,
        ratio: ratio(r.median, pAll.median),
        target: '≤ 2',
        pass: r.median <= 2 * pAll.median,
        note: `${repeats} sequential repeats; a receipt = roster refresh (ListGroups + DescribeGroups) + publish + ${n} acks through the receipts topic`,
      },
      {
        metric: '  vs plain publish → broker ack only',
        unit: 'ms',
        ours: r,
        base: pAck,
        ratio: ratio(r.median, pAck.median),
        sub: true,
      },
      {
        metric: '  of which: one roster refresh',
        unit: 'ms',
        ours: summary(rosterRefresh),
        sub: true,
      },
    ],
  };
}
