/**
 * The replay window over a topic a transactional producer writes to, on the real broker. Every
 * transaction ends in a control record (the commit or abort marker), and an aborted transaction's
 * records are never handed over: kafkajs filters both out of its batches. So the records handed
 * over end below the snapshot's high watermark, and catch-up must be judged by how far the
 * consumer read, not by the last record handed over: start() resolves without the "not read
 * through" warning, every committed record of the window arrives once and no aborted one does.
 */
import type { Producer } from 'kafkajs';
import { onTestFinished } from 'vitest';
import { useEngineHarness } from '../support/engine/engine.js';
import { newKafka, waitFor } from '../support/broker/kafka.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';

const FLAGS = 'flags';
const WINDOW_MS = 60_000;
/** Bounds the start of a reader that never catches up (the defect), so the test ends. */
const STARTUP_TIMEOUT_MS = 20_000;
const NOT_READ_THROUGH = /replay window was not read through/;

/** An idempotent transactional producer (one request in flight), disconnected when the test ends. */
async function transactionalProducer(transactionalId: string): Promise<Producer> {
  const producer = newKafka(transactionalId).producer({
    transactionalId,
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
  });
  await producer.connect();
  onTestFinished(() => producer.disconnect());
  return producer;
}

/** Writes the payloads `{ n }` in one transaction, committed or aborted, stamped `agoMs` ago. */
async function inTransaction(
  producer: Producer,
  topic: string,
  names: string[],
  outcome: 'commit' | 'abort',
  agoMs = 10_000,
): Promise<void> {
  const transaction = await producer.transaction();
  await transaction.send({
    topic,
    messages: names.map((n) => ({
      key: n,
      value: JSON.stringify({ n }),
      timestamp: String(Date.now() - agoMs),
    })),
  });
  await (outcome === 'commit' ? transaction.commit() : transaction.abort());
}

describe.each(kafkaClients())('%s client', (client) => {
  describe('replay window over transactional records', () => {
    it.each<['committed' | 'aborted']>([['committed'], ['aborted']])(
      '%s transactions in the window: start() reads the window through, each committed record once',
      async (kind) => {
        const h = useEngineHarness(`replay-tx-${kind}`, undefined, client);
        await h.createTopics([{ topic: FLAGS, numPartitions: 1 }]);
        const topic = h.topic(FLAGS);
        const producer = await transactionalProducer(`${h.prefix}tx`);
        await inTransaction(producer, topic, ['c-1', 'c-2'], 'commit');
        if (kind === 'aborted') await inTransaction(producer, topic, ['a-1', 'a-2'], 'abort');
        await inTransaction(producer, topic, ['c-3'], 'commit');
        if (kind === 'aborted') await inTransaction(producer, topic, ['a-3'], 'abort');
        // The log ends in a control record either way: the last record handed over is below it.
        // The coordinator writes the markers after EndTxn has returned: wait for them.
        const end = kind === 'committed' ? 5 : 10;
        await waitFor(async () => (await h.topicEnd(topic)) === end, {
          message: `the transaction markers of ${topic} were not written`,
        });

        const e = await h.create({
          lock: 'none',
          topics: [FLAGS],
          options: { replay: { [FLAGS]: WINDOW_MS }, startupTimeoutMs: STARTUP_TIMEOUT_MS },
        });
        await h.startEngine(e);

        expect(e.logger.matching(NOT_READ_THROUGH, 'warn')).toEqual([]);
        // Ready means replayed: every committed record already arrived, once; no aborted one.
        const names = e.payloads(FLAGS).map((p) => (p as { n: string }).n);
        expect(names).toEqual(['c-1', 'c-2', 'c-3']);
        expect(e.status()).toMatchObject({ state: 'ready', received: 3, skipped: 0 });
      },
    );
  });
});
