/**
 * The producer of an adapter, retired after a failed send. A send that gave up may or may not
 * have been written; the same idempotent producer would send the next records under that send's
 * sequence number, and the broker would take them for its duplicate and drop them. So a failed
 * send retires its producer: the next send makes a new one (a new producer id, sequences afresh),
 * and the retired one is closed once its last send has settled (sends to it still in flight are
 * not cut off).
 */
export class RetiringProducer<P> {
  private current: P | undefined;
  /** Sends under way per producer. */
  private readonly sending = new Map<P, number>();

  constructor(
    private readonly make: () => P,
    private readonly close: (producer: P) => Promise<void>,
  ) {}

  /** Runs `send` with the current producer (made when there is none). */
  async send<R>(send: (producer: P) => Promise<R>): Promise<R> {
    const producer = (this.current ??= this.make());
    this.sending.set(producer, (this.sending.get(producer) ?? 0) + 1);
    try {
      return await send(producer);
    } catch (error) {
      if (this.current === producer) this.current = undefined;
      throw error;
    } finally {
      const left = (this.sending.get(producer) ?? 1) - 1;
      if (left > 0) this.sending.set(producer, left);
      else this.sending.delete(producer);
      if (left === 0 && this.current !== producer)
        await this.close(producer).catch(() => undefined);
    }
  }

  /** Closes the current producer; the next send makes a new one. */
  async closeCurrent(): Promise<void> {
    const producer = this.current;
    this.current = undefined;
    if (producer !== undefined) await this.close(producer).catch(() => undefined);
  }
}
