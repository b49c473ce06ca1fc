// Publishes {seq} records one after another, each to every soak topic in one request (one
// partition each, so seq order is offset order) and remembers when each send started and whether it was acknowledged. skew(ms)
// stamps the next records with an explicit CreateTime that far from now: a wrong producer clock.
import kafkajs from 'kafkajs';

const { Kafka, logLevel } = kafkajs;

export class SeqProducer {
  sent = [];
  skewMs = 0;
  skewedSent = 0;
  failedSends = 0;
  #stopped = false;
  #running;

  constructor(brokers, topics, intervalMs) {
    this.topics = topics;
    this.intervalMs = intervalMs;
    this.producer = new Kafka({
      clientId: 'soak-producer',
      brokers,
      logLevel: logLevel.NOTHING,
      retry: { retries: 30, initialRetryTime: 200, maxRetryTime: 2_000 },
    }).producer({ allowAutoTopicCreation: false });
  }

  async start() {
    await this.producer.connect();
    this.#running = this.#loop();
  }

  async #loop() {
    while (!this.#stopped) {
      const seq = this.sent.length;
      const entry = { seq, startedAt: Date.now(), ackedAt: undefined };
      this.sent.push(entry);
      const message = { value: JSON.stringify({ seq }) };
      if (this.skewMs !== 0) {
        message.timestamp = String(Date.now() + this.skewMs);
        this.skewedSent++;
      }
      try {
        await this.producer.sendBatch({
          acks: -1,
          topicMessages: this.topics.map((topic) => ({ topic, messages: [message] })),
        });
        entry.ackedAt = Date.now();
      } catch {
        // Not acknowledged (broker down longer than the retries): the record may or may not
        // exist, so no instance is held to it.
        this.failedSends++;
      }
      await new Promise((resolve) => setTimeout(resolve, this.intervalMs));
    }
  }

  async stop() {
    this.#stopped = true;
    await this.#running;
    await this.producer.disconnect();
  }
}
