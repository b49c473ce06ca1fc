import type { FetchPauses } from '../../../interfaces/kafka-port.interface.js';

/**
 * How long the receipts topic is still fetched after the last receipt of ours resolved. A paused
 * topic is out of the fetch in flight, a long poll of up to consumer.maxWaitTimeMs that only new
 * records of the topics it asks for end early: a publisher that does not read the topic it
 * publishes to would see its acknowledgements up to that wait late (200 ms instead of 15 in an
 * A/B, maxWaitTimeMs 250). Lingering, a publisher that keeps publishing with receipts fetches
 * them on; only its first receipt after a quiet minute can wait for the poll in flight.
 */
export const ACK_FETCH_LINGER_MS = 60_000;

/**
 * Whether this instance fetches the receipts topic: only while one of its receipts waits, and
 * ACK_FETCH_LINGER_MS after. Every instance answers receipts, but only a publisher reads the
 * answers; when every instance read them all, a receipt to N instances cost N² record reads
 * (docs/BENCHMARKS.md, receipts).
 *
 * A publish holds it from before its look at the broker until its receipt resolves, so the topic
 * is fetched again before the message is sent: no acknowledgement of that receipt can be
 * written before then. A pause keeps the topic's positions (the engine's, never moved here), so
 * a resume reads from where the last fetch stopped: the acknowledgements written in between are
 * read too, and dropped by their key unless they answer a receipt that waits. Nothing is
 * skipped, whatever the timing of pauses, resumes and publishes.
 */
export class AckFetching implements FetchPauses {
  private holds = 0;
  private fetching = false;
  private lingering: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly watchers = new Set<() => void>();

  constructor(
    /** Full receipts topic, prefix included. */
    private readonly topic: string,
    private readonly lingerMs = ACK_FETCH_LINGER_MS,
  ) {}

  paused(topic: string): boolean {
    return topic === this.topic && !this.fetching;
  }

  watch(changed: () => void): () => void {
    const watcher = () => changed();
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /** The topic is fetched until the returned release is called (once; more calls do nothing). */
  hold(): () => void {
    this.holds++;
    clearTimeout(this.lingering);
    this.lingering = undefined;
    if (!this.stopped) this.set(true);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.holds > 0 || this.stopped) return;
      if (this.lingerMs <= 0) return this.set(false);
      this.lingering = setTimeout(() => this.set(false), this.lingerMs);
      this.lingering.unref();
    };
  }

  /** Pauses now, whatever is held, and for good: no timer is left or set (the engine stopping). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.lingering);
    this.lingering = undefined;
    this.set(false);
  }

  private set(fetching: boolean): void {
    if (this.fetching === fetching) return;
    this.fetching = fetching;
    for (const watcher of this.watchers) watcher();
  }
}
