// Figures of a publisher and its readers under a fault: what was acknowledged and not received,
// the longest silences, the publisher's own stalls. Pure functions over what the spec recorded.

/** One record the publisher sent: acknowledged (ackedAt) or not. */
export interface Sent {
  seq: number;
  sentAt: number;
  ackedAt?: number;
}

/** Acknowledged records sent at or after `since` whose seq is not in `got`. */
export function ackedMissing(sent: readonly Sent[], got: ReadonlySet<number>, since: number) {
  return sent
    .filter((s) => s.ackedAt !== undefined && s.sentAt >= since && !got.has(s.seq))
    .map((s) => s.seq);
}

/** The longest time between two of `times` within [from, to], the window's ends included. */
export function longestGapMs(times: readonly number[], from: number, to: number): number {
  const inside = [from, ...times.filter((at) => at > from && at < to).sort((a, b) => a - b), to];
  return Math.max(...inside.slice(1).map((t, k) => t - inside[k]!));
}

/**
 * The publisher's stall within [from, to]: its longest acknowledgement (send to ack) and its
 * longest time between two acknowledgements.
 */
export function publisherStall(
  sent: readonly Sent[],
  from: number,
  to: number,
): { longestAckMs: number; longestAckGapMs: number } {
  const acked = sent.filter((s) => s.ackedAt !== undefined && s.sentAt >= from && s.sentAt <= to);
  const ackTimes = acked.map((s) => s.ackedAt!).sort((a, b) => a - b);
  return {
    longestAckMs: Math.max(0, ...acked.map((s) => s.ackedAt! - s.sentAt)),
    longestAckGapMs: Math.max(0, ...ackTimes.slice(1).map((t, k) => t - ackTimes[k]!)),
  };
}

/** Records received more than once, by partition and offset. */
export function duplicateOffsets(
  messages: readonly { partition: number; offset: string }[],
): number {
  const offsets = messages.map((m) => `${m.partition}@${m.offset}`);
  return offsets.length - new Set(offsets).size;
}
