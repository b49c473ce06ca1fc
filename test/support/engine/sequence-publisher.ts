// Sequence-numbered records for the seam trials, and the verdict on what one engine received:
// nothing published after ready skipped, nothing published before start() replayed.
import type { Producer } from 'kafkajs';

/** Publishes {seq} records one after another, every `intervalMs`, and remembers when. */
export class SequencePublisher {
  readonly sent: { seq: number; startedAt: number; ackedAt: number }[] = [];
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly producer: Producer,
    private readonly topic: string,
    private readonly intervalMs = 20,
  ) {}

  start(): void {
    this.running = (async () => {
      while (!this.stopped) {
        const seq = this.sent.length;
        const startedAt = Date.now();
        await this.producer.send({
          topic: this.topic,
          acks: -1,
          messages: [{ value: JSON.stringify({ seq }) }],
        });
        this.sent.push({ seq, startedAt, ackedAt: Date.now() });
        await new Promise((resolve) => setTimeout(resolve, this.intervalMs));
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}

export interface DeliveryVerdict {
  /** seqs whose send started after ready and that never arrived */
  missing: number[];
  /** seqs acknowledged before start() was called that arrived anyway */
  replayed: number;
  /** deliveries beyond the first of a seq */
  duplicates: number;
  firstAfterReady: number;
  lastSent: number;
}

/** Judges one engine's deliveries against what was published and when. */
export function judge(
  sent: SequencePublisher['sent'],
  received: readonly number[],
  startCalledAt: number,
  readyAt: number,
): DeliveryVerdict {
  const counts = new Map<number, number>();
  for (const seq of received) counts.set(seq, (counts.get(seq) ?? 0) + 1);
  const firstAfterReady = sent.find((s) => s.startedAt >= readyAt)?.seq ?? sent.length;
  const missing = sent
    .filter((s) => s.seq >= firstAfterReady && !counts.has(s.seq))
    .map((s) => s.seq);
  const replayed = [...counts.keys()].filter(
    (seq) => seq < 0 || (sent[seq] !== undefined && sent[seq].ackedAt < startCalledAt),
  ).length;
  let duplicates = 0;
  for (const n of counts.values()) duplicates += n - 1;
  return { missing, replayed, duplicates, firstAfterReady, lastSent: sent.length - 1 };
}
