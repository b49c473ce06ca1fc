// Ten engines in one process (one clock) for benchmark 8 and bench/ab-receipts.mjs: a plain publish
// timed to the broker's ack and to the moment all ten handlers ran, and a publish with receipts
// timed until it resolves with all ten `ok`.
import { createTopics, newDataSource, now, waitFor } from './common.mjs';
import { HEARTBEAT_TOPIC, RECEIPTS_TOPIC } from './ours.mjs';

export const RECEIPT_TOPIC = 'receipts';

/**
 * Starts `n` engines of `createEngine` (a build's, see lib/ours.mjs) on `client`, instance ids
 * `i0`…; `i0` publishes. `lock`: 'postgres' (one DataSource each) or 'none' (lock-free: no
 * database in a publish's path either way). `trace` (lib/receipt-trace.mjs) is optional.
 * `receiptOptions` go into every publish with receipts (e.g. `{ expected: 'roster' }`).
 */
export async function receiptFleet({
  brokers,
  prefix,
  client,
  createEngine,
  n = 10,
  lock = 'postgres',
  trace,
  receiptOptions = {},
}) {
  await createTopics(brokers, [
    prefix + RECEIPT_TOPIC,
    prefix + RECEIPTS_TOPIC,
    prefix + HEARTBEAT_TOPIC,
  ]);
  const dataSources =
    lock === 'none' ? [] : await Promise.all(Array.from({ length: n }, () => newDataSource()));
  let handled = 0;
  const engines = Array.from({ length: n }, (_, i) =>
    createEngine({
      brokers,
      prefix,
      lock,
      dataSource: dataSources[i],
      client,
      clientId: `bench-receipts-${i}`,
      instanceId: `i${i}`,
      tap: trace?.tap(`i${i}`),
    }).on(RECEIPT_TOPIC, () => {
      trace?.handled(`i${i}`);
      handled++;
    }),
  );
  const stop = async () => {
    await Promise.all(engines.map((e) => e.stop()));
    await Promise.all(dataSources.map((d) => d.destroy()));
  };
  try {
    await Promise.all(engines.map((e) => e.start()));
    // Warm-up: connections, the roster seeing all ten, a few receipts.
    if (!(await waitFor(async () => (await engines[0].roster.refresh()).length === n, 20_000)))
      throw new Error('the roster never listed all instances');
    for (let i = 0; i < 10; i++)
      await engines[0].publisher.publish(
        RECEIPT_TOPIC,
        { w: i },
        {
          receipts: { ...receiptOptions },
        },
      );
  } catch (error) {
    await stop();
    throw error;
  }
  const publisher = engines[0].publisher;
  return {
    engines,
    /** A plain publish: ms until the broker's ack and until every handler ran. */
    async plain(payload) {
      const before = handled;
      trace?.begin('plain');
      const t0 = now();
      await publisher.publish(RECEIPT_TOPIC, payload);
      const ack = now() - t0;
      if (!(await waitFor(() => handled >= before + n, 10_000, 0.2)))
        throw new Error(`a plain broadcast did not reach all ${n} instances`);
      const all = now() - t0;
      trace?.end();
      return { ack, all };
    },
    /**
     * A publish with receipts: ms until it resolved with every instance ok. `options` go into its
     * `receipts` (after `receiptOptions`); `{ expected: 'roster' }` is traced as 'receiptRoster'.
     */
    async receipt(payload, options = {}) {
      const merged = { ...receiptOptions, ...options };
      trace?.begin(merged.expected === 'roster' ? 'receiptRoster' : 'receipt');
      const t0 = now();
      const receipt = await publisher.publish(RECEIPT_TOPIC, payload, {
        receipts: { timeoutMs: 10_000, ...merged },
      });
      const ms = now() - t0;
      trace?.end();
      if (receipt.ok.length !== n) throw new Error(`receipt ok ${receipt.ok.length}/${n}`);
      return ms;
    },
    /** One roster refresh on its own, ms. */
    async refresh() {
      const t0 = now();
      await engines[0].roster.refresh();
      return now() - t0;
    },
    stop,
  };
}
