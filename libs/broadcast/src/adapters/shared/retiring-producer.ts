import { clientClosedError } from './port-closure.js';

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
  /** The last send begun, when sends go one at a time. */
  private last: Promise<unknown> = Promise.resolve();
  /** Set by close(), for good: no producer is made any more. */
  private closed = false;

  /**
   * @param oneAtATime each send begins once the one before settled, and on the producer current
   *   then. For a client that queues concurrent sends inside one producer and numbers each only
   *   when it goes out (kafkajs: a lock per broker from sequence number to answer): a send queued
   *   behind one that failed would go out on the failed producer under the failed send's number,
   *   and if that send had been written the broker drops it as a duplicate while answering
   *   success (a publish acknowledged and never delivered).
   */
  constructor(
    private readonly make: () => P,
    private readonly close: (producer: P) => Promise<void>,
    private readonly oneAtATime = false,
  ) {}

  /** Runs `send` with the current producer (made when there is none). */
  send<R>(send: (producer: P) => Promise<R>): Promise<R> {
    if (!this.oneAtATime) return this.sendNow(send);
    const turn = this.last.then(() => this.sendNow(send));
    this.last = turn.catch(() => undefined);
    return turn;
  }

  private async sendNow<R>(send: (producer: P) => Promise<R>): Promise<R> {
    // A send queued behind others when the port closed must not make a producer nobody closes.
    if (this.closed) throw clientClosedError();
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

  /**
   * Closes for good: later sends are refused (clientClosedError) and make no producer; a send
   * still in flight closes its producer once it settles.
   */
  async closeForGood(): Promise<void> {
    this.closed = true;
    await this.closeCurrent();
  }
}
