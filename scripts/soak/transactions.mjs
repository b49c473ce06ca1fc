// A transactional producer (kafkajs transactions): one transaction at a time, each writing
// 1–3 records {tx, i} to every soak `txn` topic, then committed or (seeded) aborted. Every
// record carries an explicit CreateTime, so the replay verdict knows where a window begins.
// A transaction whose end is not known (a send or the commit failed, the broker was
// restarting) is `unknown`, whether or not an abort followed: no instance is held to its records
// either way.
// quietStart(inc) holds the producer while a replaying process starts, so that its window ends
// in a transaction marker with nothing after it: that window must be caught up all the same.
import kafkajs from 'kafkajs';

const { Kafka, logLevel } = kafkajs;

export class TxnProducer {
  /** { tx, size, stamp, startedAt, endedAt, outcome: 'committed' | 'aborted' | 'unknown' } */
  transactions = [];
  /** Processes that started on a quiet topic: { inc, began, ended, outcome } */
  quietStarts = [];
  #holds = new Set();
  #producer;
  #stopped = false;
  #running;

  constructor(brokers, topics, rnd, { abortShare = 0.3, pauseMs = [200, 600] } = {}) {
    this.topics = topics;
    this.rnd = rnd;
    this.abortShare = abortShare;
    this.pauseMs = pauseMs;
    this.kafka = new Kafka({
      clientId: 'soak-txn-producer',
      brokers,
      logLevel: logLevel.NOTHING,
      retry: { retries: 10, initialRetryTime: 200, maxRetryTime: 2_000 },
    });
    this.transactionalId = `soak-txn-${process.pid}-${Date.now().toString(36)}`;
  }

  start() {
    this.#running = this.#loop();
  }

  async stop() {
    this.#stopped = true;
    await this.#running;
    await this.#producer?.disconnect().catch(() => undefined);
  }

  /**
   * No new transaction from now until `inc` is ready, exits or `capMs` passed; records on
   * `inc.quietStart` which came first (outcome 'ready', 'exited' or 'capped').
   */
  quietStart(inc, capMs) {
    const hold = { began: Date.now(), ended: undefined, outcome: undefined };
    this.quietStarts.push(hold);
    inc.quietStart = hold;
    this.#holds.add(hold);
    const check = setInterval(() => {
      if (inc.readyAt === undefined && inc.alive && Date.now() - hold.began < capMs) return;
      clearInterval(check);
      hold.ended = Date.now();
      hold.outcome = inc.readyAt !== undefined ? 'ready' : inc.alive ? 'capped' : 'exited';
      this.#holds.delete(hold);
    }, 50);
  }

  /** Transactions of one outcome. */
  ended(outcome) {
    return this.transactions.filter((t) => t.outcome === outcome);
  }

  async #loop() {
    while (!this.#stopped) {
      const producer = this.#holds.size > 0 ? undefined : await this.#connected();
      if (producer) await this.#transaction(producer);
      await new Promise((resolve) => setTimeout(resolve, this.rnd.int(...this.pauseMs)));
    }
  }

  async #connected() {
    if (this.#producer) return this.#producer;
    const producer = this.kafka.producer({
      transactionalId: this.transactionalId,
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
    });
    try {
      await producer.connect();
      this.#producer = producer;
      return producer;
    } catch {
      await producer.disconnect().catch(() => undefined);
      return undefined;
    }
  }

  async #transaction(producer) {
    const entry = {
      tx: this.transactions.length,
      size: this.rnd.int(1, 3),
      abort: this.rnd.next() < this.abortShare,
      stamp: Date.now(),
      startedAt: Date.now(),
      endedAt: undefined,
      outcome: undefined,
    };
    this.transactions.push(entry);
    let transaction;
    try {
      transaction = await producer.transaction();
      const messages = Array.from({ length: entry.size }, (_, i) => ({
        value: JSON.stringify({ tx: entry.tx, i }),
        timestamp: String(entry.stamp),
      }));
      await transaction.sendBatch({
        topicMessages: this.topics.map((topic) => ({ topic, messages })),
      });
    } catch {
      // A failed send settles nothing, even with an abort that succeeds: a produce request of
      // this transaction may still be on its way (kafkajs sends the pre-KIP-890 EndTxn, no epoch
      // bump per transaction), lands after the abort marker and is committed with the next
      // transaction on the same partitions (a CI soak, 2026-12-07: all five instances handed
      // over the two records of a transaction counted aborted). Unknown, and the producer is
      // replaced: the same transactional id's new epoch fences whatever the old one still sends.
      await transaction?.abort().catch(() => undefined);
      entry.outcome = 'unknown';
      return this.#ended(entry, true);
    }
    try {
      if (entry.abort) await transaction.abort();
      else await transaction.commit();
      entry.outcome = entry.abort ? 'aborted' : 'committed';
      this.#ended(entry, false);
    } catch {
      entry.outcome = 'unknown';
      this.#ended(entry, true);
    }
  }

  /** After a failure the producer is replaced: the same transactional id fences the old one. */
  #ended(entry, failed) {
    entry.endedAt = Date.now();
    if (!failed) return;
    const producer = this.#producer;
    this.#producer = undefined;
    void producer?.disconnect().catch(() => undefined);
  }
}
