import type { FetchPauses } from '../../../interfaces/kafka-port.interface.js';

/**
 * Whether this instance fetches the receipts topic: only while one of its receipts waits. Every
 * instance answers receipts, but only a publisher reads the answers; when every instance read
 * them all, a receipt to N instances cost N² record reads (docs/BENCHMARKS.md, receipts).
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
  private readonly watchers = new Set<() => void>();

  constructor(
    /** Full receipts topic, prefix included. */
    private readonly topic: string,
  ) {}

  paused(topic: string): boolean {
    return topic === this.topic && this.holds === 0;
  }

  watch(changed: () => void): () => void {
    const watcher = () => changed();
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /** The topic is fetched until the returned release is called (once; more calls do nothing). */
  hold(): () => void {
    if (this.holds++ === 0) this.notify();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.holds === 0) this.notify();
    };
  }

  private notify(): void {
    for (const watcher of this.watchers) watcher();
  }
}
