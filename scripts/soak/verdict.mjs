// Judges every incarnation of every instance against what the producer published:
//  - gap: an acknowledged record whose send started after the incarnation was ready, up to the
//    last record it got (up to the end for survivors), that it never got;
//  - replay: a record acknowledged before the incarnation was spawned that it got anyway;
//  - duplicates: the same offset handed over twice.
export const DUPLICATE_BOUND = 100;

export function judgeIncarnation(inc, sent, survivor) {
  const seqs = new Set();
  const offsets = new Map();
  let maxSeq = -1;
  for (const d of inc.deliveries) {
    seqs.add(d.seq);
    offsets.set(d.offset, (offsets.get(d.offset) ?? 0) + 1);
    if (d.seq > maxSeq) maxSeq = d.seq;
  }
  let duplicates = 0;
  for (const n of offsets.values()) duplicates += n - 1;
  const result = {
    name: `${inc.name}#${inc.number}`,
    ready: inc.readyAt !== undefined,
    killed: inc.killedAt !== undefined,
    received: inc.deliveries.length,
    gaps: [],
    replayed: 0,
    duplicates,
  };
  if (inc.readyAt === undefined) return result;
  const first = sent.find((s) => s.startedAt >= inc.readyAt)?.seq ?? sent.length;
  const lastAcked = sent.findLast((s) => s.ackedAt !== undefined)?.seq ?? -1;
  const end = survivor ? lastAcked : maxSeq;
  for (let seq = first; seq <= end; seq++)
    if (sent[seq].ackedAt !== undefined && !seqs.has(seq)) result.gaps.push(seq);
  for (const seq of seqs)
    if (sent[seq]?.ackedAt !== undefined && sent[seq].ackedAt < inc.spawnedAt) result.replayed++;
  return result;
}

export function violationsOf(result) {
  const why = [];
  if (result.gaps.length > 0)
    why.push(
      `${result.gaps.length} gap(s) after ready (first ${result.gaps.slice(0, 5).join(',')})`,
    );
  if (result.replayed > 0) why.push(`${result.replayed} replayed from before its start`);
  if (result.duplicates > DUPLICATE_BOUND)
    why.push(`${result.duplicates} duplicates (> ${DUPLICATE_BOUND})`);
  return why;
}
