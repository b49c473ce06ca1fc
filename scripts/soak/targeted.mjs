// Service- and instance-targeted traffic: one instance of the fleet (the publisher slot)
// publishes {tid} on the `targeted` topic through its own engine, every 100–300 ms, each with a
// seeded `to`: one or both services, one or two instances (the incarnations live then), or
// both kinds at once. Every tenth asks for receipts when the publisher is ready. What the
// child answered (startedAt, acknowledged, the receipt) is read back from its incarnation.
export const TARGETED_TOPIC = 'targeted';
const RECEIPT_EVERY = 10;
const RECEIPT_TIMEOUT_MS = 5_000;

export class TargetedPublisher {
  /** { id, to, receipts, incarnation, sentAt } per publish command */
  sent = [];
  #stopped = false;
  #running;

  /**
   * @param publisher the slot whose current incarnation publishes
   * @param slots the slots that read the `targeted` topic (same prefix as the publisher)
   */
  constructor(publisher, slots, rnd) {
    this.publisher = publisher;
    this.slots = slots;
    this.rnd = rnd;
    this.services = [...new Set(slots.map((s) => s.service))].sort();
  }

  start() {
    this.#running = this.#loop();
  }

  async stop() {
    this.#stopped = true;
    await this.#running;
  }

  /**
   * Publishes one message with receipts through the current publisher and resolves with its
   * answer ({ receipt } or { failed }), or undefined when none came within the timeout + 10 s.
   */
  async publishWithReceipt(to) {
    const entry = this.#publish(to, true);
    if (!entry) return undefined;
    const deadline = Date.now() + RECEIPT_TIMEOUT_MS + 10_000;
    while (Date.now() < deadline) {
      const answer = entry.incarnation.published.get(entry.id);
      if (answer) return answer;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return undefined;
  }

  /** The publish and its answer: { startedAt, at, receipt? } when acknowledged, else undefined. */
  acknowledged(entry) {
    const answer = entry.incarnation.published.get(entry.id);
    return answer && !answer.failed ? answer : undefined;
  }

  async #loop() {
    while (!this.#stopped) {
      const inc = this.publisher.current;
      if (inc?.alive && inc.readyAt !== undefined) {
        const receipts = this.sent.length % RECEIPT_EVERY === 0 && inc.state === 'ready';
        this.#publish(this.#target(), receipts);
      }
      await new Promise((resolve) => setTimeout(resolve, this.rnd.int(100, 300)));
    }
  }

  #publish(to, receipts) {
    const inc = this.publisher.current;
    if (!inc?.alive) return undefined;
    const entry = { id: this.sent.length, to, receipts, incarnation: inc, sentAt: Date.now() };
    this.sent.push(entry);
    inc.publish({
      id: entry.id,
      topic: TARGETED_TOPIC,
      payload: { tid: entry.id },
      to,
      ...(receipts ? { receipts: { timeoutMs: RECEIPT_TIMEOUT_MS } } : {}),
    });
    return entry;
  }

  /** A seeded `to`: services, instances (current incarnations' ids) or both. */
  #target() {
    const kind = this.rnd.pick(['services', 'services', 'instances', 'both']);
    const to = {};
    if (kind !== 'instances')
      to.services = this.rnd.next() < 0.3 ? this.services : [this.rnd.pick(this.services)];
    if (kind !== 'services') {
      const names = this.slots.map((s) => s.current?.processName).filter(Boolean);
      const count = Math.min(names.length, this.rnd.int(1, 2));
      to.instances = this.rnd.shuffle(names).slice(0, count);
    }
    return to;
  }
}
