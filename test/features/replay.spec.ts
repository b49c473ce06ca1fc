/**
 * The replay window at start, on the real broker in every lock mode: an engine with
 * `replay: { flags: 60_000 }` starts that topic from now − 60 s (offsets by timestamp), and its
 * start() resolves only once those records were handed to the handlers; older records, other
 * topics and engines without the option still start from now; everything published after ready
 * arrives once.
 */
import { BroadcastEngine, BroadcastOptionsError } from 'nestjs-kafka-broadcast';
import { kafkaBrokers, waitFor } from '../support/broker/kafka.js';
import { useEngineHarness, type LockKind } from '../support/engine/engine.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';

const FLAGS = 'flags';
const OTHER = 'other';

describe.each(kafkaClients())('%s client', (client) => {
  describe('replay window', () => {
    it.each<[LockKind]>([['postgres'], ['mariadb'], ['none']])(
      '%s: start() resolves with the last minute of one topic handed over; the rest starts from now',
      async (lock) => {
        const h = useEngineHarness(`replay-${lock}`, undefined, client);
        await h.createTopics([{ topic: FLAGS, numPartitions: 2 }, { topic: OTHER }]);
        const producer = await h.producer();
        const at = (agoMs: number) => String(Date.now() - agoMs);
        await producer.send({
          topic: h.topic(FLAGS),
          acks: -1,
          messages: [
            { key: 'a', value: JSON.stringify({ n: 'old-1' }), timestamp: at(180_000) },
            { key: 'b', value: JSON.stringify({ n: 'old-2' }), timestamp: at(120_000) },
            { key: 'a', value: JSON.stringify({ n: 'recent-1' }), timestamp: at(30_000) },
            { key: 'b', value: JSON.stringify({ n: 'recent-2' }), timestamp: at(20_000) },
            { key: 'c', value: JSON.stringify({ n: 'recent-3' }), timestamp: at(10_000) },
          ],
        });
        await h.sendJson(OTHER, [{ n: 'other-recent' }]);

        const warm = await h.create({
          lock,
          name: 'warm',
          topics: [FLAGS, OTHER],
          options: { replay: { [FLAGS]: 60_000 } },
        });
        await h.startEngine(warm);
        // Ready means replayed: no waiting after start().
        const names = (topic: string, e = warm) =>
          e
            .payloads(topic)
            .map((p) => (p as { n: string }).n)
            .sort();
        expect(names(FLAGS)).toEqual(['recent-1', 'recent-2', 'recent-3']);
        expect(names(OTHER)).toEqual([]);

        const cold = await h.start({ lock, name: 'cold', topics: [FLAGS, OTHER] });
        expect(names(FLAGS, cold)).toEqual([]);

        await warm.engine.publisher.publish(FLAGS, { n: 'live-1' }, { key: 'a' });
        await warm.engine.publisher.publish(OTHER, { n: 'live-2' });
        await waitFor(() => [warm, cold].every((e) => e.payloads(OTHER).length === 1));
        await waitFor(
          () => names(FLAGS).includes('live-1') && names(FLAGS, cold).includes('live-1'),
        );
        expect(names(FLAGS)).toEqual(['live-1', 'recent-1', 'recent-2', 'recent-3']);
        expect(names(FLAGS, cold)).toEqual(['live-1']);
        expect(warm.status()).toMatchObject({ state: 'ready', received: 5, skipped: 0 });
      },
    );

    it('rejects a bad window at construction, naming the option', () => {
      const make = (replay: unknown) => () =>
        new BroadcastEngine({
          kafka: { brokers: kafkaBrokers() },
          lock: false,
          replay: replay as Record<string, number>,
        });
      expect(make({ flags: -1 })).toThrow(BroadcastOptionsError);
      expect(make({ flags: -1 })).toThrow(/"replay\["flags"\]"/);
      expect(make(['flags'])).toThrow(/"replay"/);
    });
  });
});
