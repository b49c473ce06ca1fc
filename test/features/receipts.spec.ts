/**
 * Delivery receipts on the real broker, in every lock mode: publish(…, { receipts }) resolves
 * with who handled the message (ok), whose handlers threw or hung (failed, with the error
 * text) and who never answered (missing); publishAndConfirm rejects unless all were ok; plain
 * broadcasts send no acknowledgement at all.
 */
import { BroadcastReceiptError, type BroadcastEngine } from 'nestjs-kafka-broadcast';
import { waitFor } from '../support/broker/kafka.js';
import { useEngineHarness, type LockKind } from '../support/engine/engine.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';
import { countingPort } from '../support/engine/counting-port.js';

/** The engine's default receipts topic (option receipts.topic). */
const RECEIPTS_TOPIC = 'broadcast.receipts.v1';
const TOPIC = 'product.changed';
const HANDLER_TIMEOUT_MS = 1_000;

interface Change {
  id: number;
  mode?: 'throw' | 'hang';
}

/** A handler that throws on `mode: 'throw'` and never settles on `mode: 'hang'`. */
function misbehaving(engine: BroadcastEngine): void {
  engine.on<Change>(
    TOPIC,
    (change) => {
      if (change.mode === 'throw') throw new Error(`cannot evict ${change.id}`);
      if (change.mode === 'hang') return new Promise(() => undefined);
      return undefined;
    },
    'Cache.evict',
  );
}

describe.each(kafkaClients())('%s client', (client) => {
  describe('receipts', () => {
    it.each<[LockKind]>([['postgres'], ['mariadb'], ['none']])(
      '%s: ok from all three; a throwing and a hanging handler are failed with their error; plain publishes send no ack',
      async (lock) => {
        const h = useEngineHarness(
          `receipts-${lock}`,
          { handlerTimeoutMs: HANDLER_TIMEOUT_MS },
          client,
        );
        const a = await h.create({ lock, topics: [TOPIC], name: 'a' });
        const b = await h.create({ lock, topics: [TOPIC], name: 'b', register: misbehaving });
        const c = await h.create({ lock, topics: [TOPIC], name: 'c', register: misbehaving });
        await Promise.all([a, b, c].map((e) => h.startEngine(e)));
        await h.allReady([a, b, c]);
        const publisher = a.engine.publisher;

        const all = await publisher.publish(TOPIC, { id: 1 }, { receipts: { timeoutMs: 15_000 } });
        expect(all.expected).toEqual(['a', 'b', 'c']);
        expect(all.ok).toEqual(['a', 'b', 'c']);
        expect(all.failed).toEqual([]);
        expect(all.missing).toEqual([]);
        expect(all.topic).toBe(TOPIC);

        // b throws: failed with the handler's name and error; a and c handled it.
        const thrown = await publisher.publish(
          TOPIC,
          { id: 2, mode: 'throw' },
          { receipts: { timeoutMs: 15_000 } },
        );
        expect(thrown.ok).toEqual(['a']);
        expect(thrown.failed.map((f) => f.instanceId)).toEqual(['b', 'c']);
        for (const f of thrown.failed) expect(f.errors).toEqual(['Cache.evict: cannot evict 2']);

        // A hanging handler answers once handlerTimeoutMs passed, as failed.
        const hung = await publisher.publish(
          TOPIC,
          { id: 3, mode: 'hang' },
          { receipts: { timeoutMs: 15_000 } },
        );
        expect(hung.ok).toEqual(['a']);
        expect(hung.missing).toEqual([]);
        for (const f of hung.failed)
          expect(f.errors).toEqual([`Cache.evict: timed out after ${HANDLER_TIMEOUT_MS} ms`]);
        expect(hung.failed.map((f) => f.instanceId)).toEqual(['b', 'c']);

        await expect(
          publisher.publishAndConfirm(TOPIC, { id: 4, mode: 'throw' }),
        ).rejects.toBeInstanceOf(BroadcastReceiptError);
        const confirmed = await b.engine.publisher.publishAndConfirm(TOPIC, { id: 5 });
        expect(confirmed.ok).toEqual(['a', 'b', 'c']);

        // Five receipts, three answers each; the publisher's own answer (a's for 1-4, b's for
        // 5) is counted where it is, so only the other two went through the receipts topic.
        // Plain broadcasts ask for nothing: the receipts topic does not grow.
        const receiptsTopic = h.topic(RECEIPTS_TOPIC);
        await waitFor(() => [a, b, c].every((e) => e.payloads(TOPIC).length === 5));
        const acksBefore = await h.topicEnd(receiptsTopic);
        expect(acksBefore).toBe(5 * 2);
        for (let n = 0; n < 20; n++) await publisher.publish(TOPIC, { id: 100 + n });
        await waitFor(() => [a, b, c].every((e) => e.payloads(TOPIC).length === 25));
        expect(await h.topicEnd(receiptsTopic)).toBe(acksBefore);
        for (const e of [a, b, c]) expect(e.status().received).toBe(25);
      },
    );

    it('an instance that starts after the publish is not expected, and its answer does not count', async () => {
      // a's handler waits for the late instance: give it time enough not to time out.
      const h = useEngineHarness('receipts-late', { handlerTimeoutMs: 5_000 }, client);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const a = await h.start({
        lock: 'postgres',
        name: 'a',
        register: (e) => e.on(TOPIC, () => gate),
      });
      const pending = a.engine.publisher.publish(
        TOPIC,
        { id: 1 },
        { receipts: { timeoutMs: 20_000 } },
      );
      // The late instance is ready before a answers (a's handler waits for it).
      await waitFor(() => a.status().received === 1);
      // With a replay window the late instance handles that very message, and answers it.
      const late = await h.start({
        lock: 'postgres',
        name: 'late',
        topics: [TOPIC],
        options: { replay: { [TOPIC]: 60_000 } },
      });
      expect(late.payloads(TOPIC)).toEqual([{ id: 1 }]);
      const acks = () => h.topicEnd(h.topic(RECEIPTS_TOPIC));
      await waitFor(async () => (await acks()) === 1, { message: 'the late instance answers' });
      release();
      const receipt = await pending;
      expect(receipt.expected).toEqual(['a']);
      expect(receipt.ok).toEqual(['a']);
      expect(receipt.failed).toEqual([]);
      // a's own answer is counted in a: the topic holds the late instance's only.
      expect(await acks()).toBe(1);
    });

    it("an instance that joined after the roster's latest refresh is expected: a receipt looks at the broker itself", async () => {
      // The roster polls once a minute: its view is whatever the first refresh saw.
      const h = useEngineHarness('receipts-fresh', { roster: { intervalMs: 60_000 } }, client);
      const a = await h.start({ lock: 'none', topics: [TOPIC], name: 'a' });
      expect((await a.engine.roster.refresh()).map((i) => i.instanceId)).toEqual(['a']);
      const lastRefreshAt = a.engine.roster.lastRefreshAt;
      const b = await h.start({ lock: 'none', topics: [TOPIC], name: 'b' });
      const receipt = await a.engine.publisher.publish(
        TOPIC,
        { id: 1 },
        { receipts: { timeoutMs: 15_000 } },
      );
      expect(receipt.expected).toEqual(['a', 'b']);
      expect(receipt.ok).toEqual(['a', 'b']);
      await waitFor(() => b.payloads(TOPIC).length === 1);
      // The receipt neither refreshed the roster nor waited for it.
      expect(a.engine.roster.lastRefreshAt).toBe(lastRefreshAt);
      expect(a.engine.roster.instances().map((i) => i.instanceId)).toEqual(['a']);
    });

    it("expected: 'roster' expects the roster's latest refresh: an instance that joined since is not expected, yet handles the message", async () => {
      const h = useEngineHarness('receipts-view', { roster: { intervalMs: 60_000 } }, client);
      const a = await h.start({ lock: 'none', topics: [TOPIC], name: 'a' });
      expect((await a.engine.roster.refresh()).map((i) => i.instanceId)).toEqual(['a']);
      const b = await h.start({ lock: 'none', topics: [TOPIC], name: 'b' });
      const lastRefreshAt = a.engine.roster.lastRefreshAt;
      const receipt = await a.engine.publisher.publish(
        TOPIC,
        { id: 1 },
        { receipts: { timeoutMs: 15_000, expected: 'roster' } },
      );
      expect(receipt.expected).toEqual(['a']);
      expect(receipt.ok).toEqual(['a']);
      expect(receipt.missing).toEqual([]);
      await waitFor(() => b.payloads(TOPIC).length === 1);
      // No refresh nor look for it: the view of the refresh before b started.
      expect(a.engine.roster.lastRefreshAt).toBe(lastRefreshAt);
      // The default looks again: b is expected.
      const looked = await a.engine.publisher.publish(
        TOPIC,
        { id: 2 },
        { receipts: { timeoutMs: 15_000 } },
      );
      expect(looked.expected).toEqual(['a', 'b']);
      expect(looked.ok).toEqual(['a', 'b']);
    });

    it('an instance with receipts: false handles the message but is not expected and never answers', async () => {
      const h = useEngineHarness('receipts-off', undefined, client);
      const a = await h.start({ lock: 'none', topics: [TOPIC], name: 'a' });
      const quiet = await h.start({
        lock: 'none',
        topics: [TOPIC],
        name: 'quiet',
        options: { receipts: false },
      });
      const roster = await a.engine.roster.refresh();
      expect(roster.map((i) => [i.instanceId, i.receipts])).toEqual([
        ['a', true],
        ['quiet', false],
      ]);
      const receipt = await a.engine.publisher.publish(TOPIC, { id: 1 }, { receipts: true });
      expect(receipt.expected).toEqual(['a']);
      expect(receipt.ok).toEqual(['a']);
      await waitFor(() => quiet.payloads(TOPIC).length === 1);
      // quiet wrote nothing, and a's own answer never goes through the topic.
      expect(await h.topicEnd(h.topic(RECEIPTS_TOPIC))).toBe(0);
      await expect(
        quiet.engine.publisher.publish(TOPIC, { id: 2 }, { receipts: true }),
      ).rejects.toThrow(/Receipts need/);
    });

    it('receipts need a reading engine and a valid timeout; nothing is sent otherwise', async () => {
      const h = useEngineHarness('receipts-bad', undefined, client);
      const a = await h.create({ lock: 'none', topics: [TOPIC] });
      await expect(
        a.engine.publisher.publish(TOPIC, { id: 1 }, { receipts: true }),
      ).rejects.toThrow(/not reading yet/);
      await h.startEngine(a);
      await expect(
        a.engine.publisher.publish(TOPIC, { id: 1 }, { receipts: { timeoutMs: -1 } }),
      ).rejects.toThrow(/Invalid publish option "receipts"/);
      expect(await h.topicEnd(h.topic(TOPIC))).toBe(0);
    });

    it('only a publisher fetches the acknowledgements; a resume reads on from where it paused', async () => {
      const h = useEngineHarness('receipts-fetch', undefined, client);
      // Records of the receipts topic each engine's group consumers handed over.
      const reads = new Map<string, number>();
      const receiptsTopic = h.topic(RECEIPTS_TOPIC);
      const [a, b, c] = await Promise.all(
        ['a', 'b', 'c'].map((name) =>
          h.start({
            lock: 'none',
            topics: [TOPIC],
            name,
            kafkaPort: countingPort(receiptsTopic, reads, name),
          }),
        ),
      );
      await h.allReady([a!, b!, c!]);
      for (let id = 1; id <= 3; id++) {
        const receipt = await a!.engine.publisher.publish(TOPIC, { id }, { receipts: true });
        expect(receipt.expected).toEqual(['a', 'b', 'c']);
        expect(receipt.ok).toEqual(['a', 'b', 'c']);
      }
      // A plain message written after the six acks: the fetch that brings it to b and c would
      // have brought the acks too, had they fetched the receipts topic (one broker, one Fetch).
      await a!.engine.publisher.publish(TOPIC, { id: 4 });
      await waitFor(() => [b!, c!].every((e) => e.payloads(TOPIC).length === 4));
      expect(await h.topicEnd(receiptsTopic)).toBe(6);
      expect(Object.fromEntries(reads)).toEqual({ a: 6, b: 0, c: 0 });
      // b's first receipt resumes where b paused: it reads a's six acks, then its own two (a,
      // still fetching for a while after its receipts, may read those two as well).
      const fromB = await b!.engine.publisher.publish(TOPIC, { id: 5 }, { receipts: true });
      expect(fromB.ok).toEqual(['a', 'b', 'c']);
      expect([reads.get('b'), reads.get('c')]).toEqual([8, 0]);
    });

    it('a malformed acknowledgement (null, a number, half an object) is skipped: no crash, no rejoin', async () => {
      const h = useEngineHarness('receipts-malformed', undefined, client);
      const a = await h.start({ lock: 'none', topics: [TOPIC], name: 'a' });
      const b = await h.start({ lock: 'none', topics: [TOPIC], name: 'b' });
      await h.allReady([a, b]);
      // Anyone can write to the receipts topic: values keyed for a's instance id that are no ack.
      const producer = await h.producer();
      await producer.send({
        topic: h.topic(RECEIPTS_TOPIC),
        acks: -1,
        messages: ['null', '123', '"x"', '{}', '{"r":5}', '[1]', '{'].map((value) => ({
          key: 'a',
          value,
        })),
      });
      // a fetches the receipts topic only while a receipt of its own waits: it reads them then,
      // before the answers to that receipt (one partition).
      const receipt = await a.engine.publisher.publish(
        TOPIC,
        { id: 9 },
        { receipts: { timeoutMs: 15_000 } },
      );
      expect(receipt.ok).toEqual(['a', 'b']);
      expect(a.logger.matching(/malformed broadcast receipt/)).toHaveLength(7);
      expect(a.logger.matching(/rejoining|stopped/)).toEqual([]);
      expect(a.status()).toMatchObject({ state: 'ready', internalErrors: 0 });
    });
  });
});
