// Verdicts of the traffic shapes beyond the `seq` stream (see verdict.mjs for that one):
//  - targeted: every acknowledged publish reaches exactly the targeted incarnations that were
//    ready when it was published (none skipped), none twice, and no other incarnation at all;
//  - txn: committed records like any other record (no gap after ready, no replay from before
//    the process), aborted ones never; an incarnation with a replay window gets the window's
//    committed records once (none from before the window, none skipped), then everything live;
//  - every incarnation: no handler call before its group was proven (after a join, before the
//    reader was ready again); a replay window read through before the startup deadline, and
//    also when the topic is quiet and ends in a transaction marker (TxnProducer.quietStart).
// A killed incarnation is held to records acknowledged END_SLACK_MS before its last delivery.
export const END_SLACK_MS = 2_000;

function isTargeted(to, inc) {
  return Boolean(
    to.instances?.includes(inc.processName) || to.services?.includes(inc.slot.service),
  );
}

/** Until when an incarnation is held to what was acknowledged: the end, or its last delivery. */
function heldUntil(inc, survivor) {
  return survivor ? Infinity : inc.lastDeliveryAt - END_SLACK_MS;
}

/** Offsets handed over more than once, and how often each key (tid, record id) arrived. */
function tally(deliveries, keyOf) {
  const offsets = new Map();
  const keys = new Map();
  for (const d of deliveries) {
    offsets.set(d.offset, (offsets.get(d.offset) ?? 0) + 1);
    keys.set(keyOf(d), (keys.get(keyOf(d)) ?? 0) + 1);
  }
  let duplicates = 0;
  for (const n of offsets.values()) duplicates += n - 1;
  return { duplicates, keys };
}

/**
 * Per tid, how many deliveries and how many distinct offsets. The same offset twice is a reader
 * defect (twice); a tid at two offsets was written twice, a retried send the idempotent producer
 * should have made one record of (writtenTwice). Both fail the soak.
 */
function byTid(deliveries) {
  const tids = new Map();
  for (const d of deliveries) {
    const seen = tids.get(d.tid) ?? { n: 0, offsets: new Set() };
    seen.n++;
    seen.offsets.add(String(d.offset));
    tids.set(d.tid, seen);
  }
  return tids;
}

export function judgeTargeted(publisher, slots, survivors) {
  const incs = slots.flatMap((s) => s.incarnations);
  const got = new Map(incs.map((inc) => [inc, byTid(inc.targeted)]));
  const result = { sent: publisher.sent.length, acked: 0, expected: 0, received: 0 };
  Object.assign(result, { missed: [], offTarget: [], twice: [], writtenTwice: [] });
  for (const entry of publisher.sent) {
    const ack = publisher.acknowledged(entry);
    if (!ack) continue;
    result.acked++;
    for (const inc of incs) {
      const seen = got.get(inc).get(entry.id);
      const n = seen?.n ?? 0;
      const where = `${inc.name}#${inc.number} tid ${entry.id} ${JSON.stringify(entry.to)}`;
      if (seen && n > seen.offsets.size) result.twice.push(where);
      if (seen && seen.offsets.size > 1) result.writtenTwice.push(where);
      if (!isTargeted(entry.to, inc)) {
        if (n > 0) result.offTarget.push(where);
        continue;
      }
      const ready = inc.readyAt !== undefined && inc.readyAt <= ack.startedAt;
      if (!ready || ack.at > heldUntil(inc, survivors.has(inc))) continue;
      result.expected++;
      if (n === 0) result.missed.push(where);
      else result.received++;
    }
  }
  return result;
}

/** The receipts asked for along the targeted traffic, and how they resolved. */
export function receiptFigures(publisher) {
  const figures = { asked: 0, resolved: 0, allAnswered: 0, missing: 0, failed: 0, refused: 0 };
  for (const entry of publisher.sent.filter((e) => e.receipts)) {
    figures.asked++;
    const answer = entry.incarnation.published.get(entry.id);
    if (answer?.failed) figures.refused++;
    if (!answer?.receipt) continue;
    figures.resolved++;
    figures.missing += answer.receipt.missing.length;
    figures.failed += answer.receipt.failed.length;
    if (answer.receipt.missing.length === 0) figures.allAnswered++;
  }
  return figures;
}

export function judgeTxn(inc, transactions, survivor) {
  const { duplicates, keys } = tally(inc.txn, (d) => d.id);
  const byTx = new Map(transactions.map((t) => [t.tx, t]));
  const windowMs = inc.slot.replayMs;
  const result = { name: `${inc.name}#${inc.number}`, received: inc.txn.length, duplicates };
  Object.assign(result, { gaps: [], aborted: [], replayed: [], windowRecords: 0 });
  let firstTx = Infinity;
  for (const d of inc.txn) {
    const t = byTx.get(d.tx);
    if (t?.outcome === 'aborted') result.aborted.push(d.id);
    if (t?.outcome !== 'committed') continue;
    firstTx = Math.min(firstTx, t.tx);
    if (windowMs === undefined && t.endedAt < inc.spawnedAt) result.replayed.push(d.id);
    if (windowMs !== undefined && t.stamp < inc.spawnedAt - windowMs) result.replayed.push(d.id);
    if (windowMs !== undefined && inc.readyAt !== undefined && t.stamp < inc.readyAt)
      result.windowRecords++;
  }
  if (inc.readyAt === undefined) return result;
  const until = heldUntil(inc, survivor);
  for (const t of transactions) {
    if (t.outcome !== 'committed' || t.endedAt > until) continue;
    // The window began at (engine's now at start) − window, between spawn and ready: whatever
    // was stamped after ready − window is in it, and so is everything after the first one got.
    const due =
      windowMs === undefined
        ? t.startedAt >= inc.readyAt
        : t.stamp >= inc.readyAt - windowMs || t.tx >= firstTx;
    if (!due) continue;
    for (let i = 0; i < t.size; i++)
      if (!keys.has(`${t.tx}.${i}`)) result.gaps.push(`${t.tx}.${i}`);
  }
  return result;
}

export function txnViolations(r) {
  const why = [];
  const first = (list) => list.slice(0, 5).join(',');
  if (r.gaps.length > 0)
    why.push(
      `txn: ${r.gaps.length} committed record(s) never handed over (first ${first(r.gaps)})`,
    );
  if (r.aborted.length > 0)
    why.push(`txn: ${r.aborted.length} aborted record(s) handed over (${first(r.aborted)})`);
  if (r.replayed.length > 0)
    why.push(
      `txn: ${r.replayed.length} record(s) from before its start/window (${first(r.replayed)})`,
    );
  if (r.duplicates > 0) why.push(`txn: ${r.duplicates} offset(s) handed over twice`);
  return why;
}

/** Per incarnation: handler calls before its group was proven; a replay window not read through. */
export function incarnationViolations(inc) {
  const why = [];
  if (inc.unproven.length > 0) {
    const u = inc.unproven[0];
    why.push(
      `${inc.unproven.length} handler call(s) before its group was proven (first ${u.topic}@${u.offset} while ${u.state})`,
    );
  }
  const quiet = inc.quietStart;
  if (quiet?.outcome === 'capped')
    why.push(
      `not ready ${quiet.ended - quiet.began} ms after spawn: its replay window ends in a transaction marker and the topic stayed quiet`,
    );
  if (inc.replayNotReadThrough)
    why.push(
      `replay window not read through before the startup deadline (ready after ${inc.readyAt - inc.spawnedAt} ms)`,
    );
  return why;
}
