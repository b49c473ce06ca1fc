/**
 * Typed broadcasts: a definition (defineBroadcast) carries the payload type to publish(),
 * engine.on() and @OnBroadcast, and its Standard Schema validator (zod here) runs on both ends:
 * publishing an invalid payload fails before Kafka; an invalid payload on receive is logged,
 * counted `invalid` and never handed to a handler (and a receipt reports it as failed).
 */
import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import {
  BroadcastModule,
  BroadcastPublisher,
  BroadcastReader,
  BroadcastValidationError,
  defineBroadcast,
  OnBroadcast,
  type BroadcastMessage,
} from 'nestjs-kafka-broadcast';
import { waitFor } from '../support/broker/kafka.js';
import { useEngineHarness, type LockKind } from '../support/engine/engine.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';
import { postgresRoot, useNestHarness } from '../support/nest/nest.js';

const productChanged = z.object({ id: z.number().int(), name: z.string() });
type ProductChanged = z.infer<typeof productChanged>;
const ProductChanged = defineBroadcast('product.changed', { schema: productChanged });
/** The same topic, typed only (no runtime check). */
const ProductChangedUnchecked = defineBroadcast<ProductChanged>('product.changed');

// Compile-time agreement; never called, checked by `tsc --noEmit` (npm run typecheck).
export function compileTimeChecks(publisher: BroadcastPublisher) {
  void publisher.publish(ProductChanged, { id: 1, name: 'ok' });
  // @ts-expect-error id must be a number
  void publisher.publish(ProductChanged, { id: '1', name: 'no' });
  // @ts-expect-error name is missing
  void publisher.publish(ProductChangedUnchecked, { id: 1 });
  class Handlers {
    @OnBroadcast(ProductChanged)
    good(event: ProductChanged, message: BroadcastMessage<ProductChanged>) {
      return [event.name, message.offset];
    }
    // @ts-expect-error the handler expects another payload
    @OnBroadcast(ProductChanged)
    bad(event: { sku: string }) {
      return event.sku;
    }
  }
  return Handlers;
}

describe.each(kafkaClients())('typed broadcasts, %s client', (client) => {
  it.each<[LockKind]>([['postgres'], ['mariadb'], ['none']])(
    '%s: invalid payloads fail before Kafka on publish and are counted invalid on receive',
    async (lock) => {
      const h = useEngineHarness(`typed-${lock}`, {}, client);
      const handled: ProductChanged[] = [];
      const a = await h.start({
        lock,
        name: 'a',
        register: (e) => e.on(ProductChanged, (p) => void handled.push(p)),
      });
      // b checks a stricter schema (an older or newer version of the contract).
      const strict = defineBroadcast('product.changed', {
        schema: productChanged.extend({ price: z.number() }),
      });
      const b = await h.start({ lock, name: 'b', register: (e) => e.on(strict, () => undefined) });

      const receipt = await a.engine.publisher.publish(
        ProductChanged,
        { id: 1, name: 'Espresso machine' },
        { receipts: true },
      );
      expect(handled).toEqual([{ id: 1, name: 'Espresso machine' }]);
      expect(receipt.ok).toEqual(['a']);
      expect(receipt.failed).toEqual([
        { instanceId: 'b', errors: [expect.stringMatching(/^invalid payload: price: /)] },
      ]);

      const topic = h.topic(ProductChanged.topic);
      const before = await h.topicEnd(topic);
      const error = await a.engine.publisher
        .publish(ProductChanged, { id: 'x' as never, name: 'bad' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BroadcastValidationError);
      expect((error as BroadcastValidationError).issues).toEqual([expect.stringMatching(/^id: /)]);
      expect(await h.topicEnd(topic)).toBe(before);

      // Someone else's producer writes an invalid one: skipped before the handlers, counted.
      await h.sendJson(ProductChanged.topic, [{ id: 'x' }, { id: 2, name: 'Grinder' }]);
      // Each engine reads at its own pace: wait for b too before reading its counters.
      await waitFor(
        () => handled.length === 2 && b.status().received >= 3 && b.status().invalid >= 3,
      );
      expect(handled[1]).toEqual({ id: 2, name: 'Grinder' });
      expect(a.status()).toMatchObject({ received: 3, invalid: 1, failed: 0 });
      expect(b.status()).toMatchObject({ received: 3, invalid: 3, failed: 0 });
      expect(
        a.logger.matching(/^Invalid broadcast payload product\.changed\[0\]@1: id: /, 'warn'),
      ).toHaveLength(1);
    },
  );

  it('@OnBroadcast(definition) in a Nest app receives validated payloads only', async () => {
    @Injectable()
    class Catalog {
      readonly seen: ProductChanged[] = [];

      @OnBroadcast(ProductChanged)
      changed(event: ProductChanged) {
        this.seen.push(event);
      }
    }
    const h = useNestHarness('typed-nest', undefined, client);
    const app = await h.start({
      imports: [postgresRoot(), BroadcastModule.forRoot(h.options())],
      providers: [Catalog],
    });
    const publisher = app.get(BroadcastPublisher);
    await publisher.publish('product.changed', { id: 'not a number' });
    await publisher.publish(ProductChanged, { id: 3, name: 'Kettle' });
    const catalog = app.get(Catalog);
    await waitFor(() => catalog.seen.length === 1);
    await waitFor(() => app.get(BroadcastReader).status().received === 2);
    expect(catalog.seen).toEqual([{ id: 3, name: 'Kettle' }]);
    expect(app.get(BroadcastReader).status()).toMatchObject({ invalid: 1, failed: 0 });
  });
});
