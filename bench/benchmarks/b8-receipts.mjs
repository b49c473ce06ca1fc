// 8. Receipt round trip: publish → every instance's acknowledgement back at the publisher, for 10
// instances in ONE process (one clock), against a plain publish of the same message in the same run.
// Once per adapter (kafkajs, @platformatic/kafka, then @confluentinc/kafka-javascript when its build
// loads: lib/sides.mjs), each with its own ten engines; every publish
// is traced along its path (lib/receipt-trace.mjs) to tell where a receipt's time goes.
import { ratio, sleep, summary } from '../lib/common.mjs';
import { createEngine, RECEIPTS_TOPIC } from '../lib/ours.mjs';
import { RECEIPT_TOPIC as TOPIC, receiptFleet } from '../lib/receipt-fleet.mjs';
import { receiptTrace } from '../lib/receipt-trace.mjs';
import { CLIENTS as SIDE_CLIENTS } from '../lib/sides.mjs';

export const id = '8';
export const title = 'Receipt round trip (publish → all acks), 10 instances, per adapter';
const CLIENTS = process.env.BENCH_B8_CLIENTS?.split(',') ?? SIDE_CLIENTS;

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
  const trace = receiptTrace({
    dataTopic: prefix + TOPIC,
    receiptsTopic: prefix + RECEIPTS_TOPIC,
    publisherId: 'i0',
  });
  const fleet = await receiptFleet({
    brokers: ctx.brokers,
    prefix,
    client,
    createEngine,
    n,
    trace,
  });
  const plainAck = [];
  const plainAll = [];
  const receiptAll = [];
  const receiptRoster = [];
  const rosterRefresh = [];
  try {
    for (let i = 0; i < repeats; i++) {
      const plain = await fleet.plain({ i });
      plainAck.push(plain.ack);
      plainAll.push(plain.all);
      await sleep(20);
      receiptAll.push(await fleet.receipt({ i }));
      await sleep(20);
      // The same with the roster's background view instead of the look (GUIDE.md, Receipts).
      receiptRoster.push(await fleet.receipt({ i }, { expected: 'roster' }));
      rosterRefresh.push(await fleet.refresh());
      await sleep(20);
    }
  } finally {
    await fleet.stop();
  }
  const r = summary(receiptAll);
  const pAll = summary(plainAll);
  const pAck = summary(plainAck);
  return {
    samples: { plainAck, plainAll, receiptAll, receiptRoster, rosterRefresh },
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
        note: `${repeats} sequential repeats; a receipt = publish (the roster read alongside) + ${n} acks through the receipts topic`,
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
        metric: `  with expected: 'roster' (no look before the send) vs plain → all ${n} handlers ran`,
        unit: 'ms',
        ours: summary(receiptRoster),
        base: pAll,
        ratio: ratio(summary(receiptRoster).median, pAll.median),
        target: '≤ 2',
        pass: summary(receiptRoster).median <= 2 * pAll.median,
        sub: true,
      },
      {
        metric: '  one roster refresh on its own (ListGroups + a describe)',
        unit: 'ms',
        ours: summary(rosterRefresh),
        sub: true,
      },
    ],
  };
}
