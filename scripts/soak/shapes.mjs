// The traffic shapes' part of the soak's verdict and summary: per incarnation the
// transactional records and its own violations, fleet-wide the targeted records, and the
// per-shape counts a run is quoted by (targeted sent / expected / received, receipts, replayed
// records, transactions and aborted records seen, malformed acks sent, lock losses).
import {
  incarnationViolations,
  judgeTargeted,
  judgeTxn,
  receiptFigures,
  txnViolations,
} from './verdict-shapes.mjs';

const first = (list) => list.slice(0, 3).join('; ');
const records = (transactions) => transactions.reduce((n, t) => n + t.size, 0);
const sum = (list, of) => list.reduce((n, x) => n + of(x), 0);

/**
 * @param survivors the incarnations alive at the end, held to everything up to then
 * @param shapes the faults' counters (malformed acks sent, lock losses)
 */
export function judgeShapes({ slots, mainSlots, survivors, targeted, txn, shapes }) {
  const problems = [];
  const incarnations = slots.flatMap((s) => s.incarnations);
  const txnResults = incarnations.map((inc) => judgeTxn(inc, txn.transactions, survivors.has(inc)));
  for (const r of txnResults)
    for (const why of txnViolations(r)) problems.push(`${r.name}: ${why}`);
  for (const inc of incarnations)
    for (const why of incarnationViolations(inc))
      problems.push(`${inc.name}#${inc.number}: ${why}`);

  const aim = judgeTargeted(targeted, mainSlots, survivors);
  if (aim.missed.length > 0)
    problems.push(
      `targeted: ${aim.missed.length} expected deliveries missed (${first(aim.missed)})`,
    );
  if (aim.offTarget.length > 0)
    problems.push(
      `targeted: ${aim.offTarget.length} deliveries off target (${first(aim.offTarget)})`,
    );
  if (aim.twice.length > 0)
    problems.push(`targeted: ${aim.twice.length} delivered twice (${first(aim.twice)})`);
  // The publisher's producer is idempotent: a retried send is written once.
  if (aim.writtenTwice.length > 0)
    problems.push(
      `targeted: ${aim.writtenTwice.length} written twice (${first(aim.writtenTwice)})`,
    );

  const replaying = new Set(incarnations.filter((inc) => inc.slot.replayMs !== undefined));
  const committed = txn.ended('committed');
  const aborted = txn.ended('aborted');
  const figures = {
    targeted: {
      sent: aim.sent,
      acked: aim.acked,
      expected: aim.expected,
      received: aim.received,
      missed: aim.missed.length,
      offTarget: aim.offTarget.length,
      twice: aim.twice.length,
      writtenTwice: aim.writtenTwice.length,
    },
    receipts: receiptFigures(targeted),
    replay: {
      incarnations: replaying.size,
      replayedRecords: sum(
        txnResults.filter((_, i) => replaying.has(incarnations[i])),
        (r) => r.windowRecords,
      ),
      notReadThrough: [...replaying].filter((inc) => inc.replayNotReadThrough).length,
      quietStarts: txn.quietStarts.length,
      notCaughtUpOnQuietTopic: txn.quietStarts.filter((q) => q.outcome === 'capped').length,
    },
    transactions: {
      committed: committed.length,
      aborted: aborted.length,
      unknown: txn.ended('unknown').length,
      committedRecords: records(committed),
      abortedRecords: records(aborted),
      deliveries: sum(txnResults, (r) => r.received),
      abortedSeen: sum(txnResults, (r) => r.aborted.length),
    },
    malformedAcks: { sent: shapes.malformedAcks },
    lockLosses: shapes.lockLosses,
    unprovenHandlerCalls: sum(incarnations, (inc) => inc.unproven.length),
    rejoins: sum(incarnations, (inc) => inc.rejoins.length),
  };
  return { problems, figures, txnResults };
}
