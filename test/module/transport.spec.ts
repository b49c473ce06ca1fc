/**
 * BroadcastTransport and BroadcastClient: @EventPattern(topic, BROADCAST_TRANSPORT) handlers
 * share the app's one consumer group with @OnBroadcast handlers; BroadcastClient.emit()
 * publishes a broadcast.
 */
import { Controller, Injectable } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import {
  BroadcastModule,
  BroadcastPublisher,
  BroadcastReader,
  OnBroadcast,
  type BroadcastMessage,
} from 'nestjs-kafka-broadcast';
import {
  BROADCAST_TRANSPORT,
  BroadcastClient,
  BroadcastContext,
} from 'nestjs-kafka-broadcast/microservices';
import { waitFor } from '../support/broker/kafka.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';
import { postgresRoot, useNestHarness } from '../support/nest/nest.js';

interface Order {
  id: number;
}

interface TransportEvent {
  handler: string;
  payload: unknown;
  topic: string;
  message: BroadcastMessage;
}

@Controller()
class OrdersController {
  readonly events: TransportEvent[] = [];

  // <string>: Nest 12's typed-events overload would otherwise demand `(data, ...args: unknown[])`.
  @EventPattern<string>('orders', BROADCAST_TRANSPORT)
  onOrder(@Payload() payload: Order, @Ctx() ctx: BroadcastContext) {
    this.events.push({
      handler: 'onOrder',
      payload,
      topic: ctx.getTopic(),
      message: ctx.getMessage(),
    });
  }

  /** A topic only the transport listens to. */
  @EventPattern<string>('payments', BROADCAST_TRANSPORT)
  async onPayment(@Payload() payload: unknown, @Ctx() ctx: BroadcastContext) {
    await Promise.resolve();
    this.events.push({
      handler: 'onPayment',
      payload,
      topic: ctx.getTopic(),
      message: ctx.getMessage(),
    });
  }
}

@Injectable()
class OrdersListener {
  readonly payloads: Order[] = [];

  @OnBroadcast('orders')
  onOrder(payload: Order) {
    this.payloads.push(payload);
  }
}

describe.each(kafkaClients())(
  'BroadcastTransport and BroadcastClient, %s client',
  (kafkaClient) => {
    it('delivers to @EventPattern and @OnBroadcast handlers through one consumer group; emit() publishes', async () => {
      const h = useNestHarness('transport', undefined, kafkaClient);
      const app = await h.start(
        {
          imports: [postgresRoot(), BroadcastModule.forRoot(h.options())],
          controllers: [OrdersController],
          providers: [OrdersListener, BroadcastClient],
        },
        { transport: true },
      );
      const controller = app.get(OrdersController);
      const listener = app.get(OrdersListener);
      const reader = app.get(BroadcastReader);

      // Through the publisher: both kinds of handler receive it.
      const before = Date.now();
      await app.get(BroadcastPublisher).publish('orders', { id: 1 }, { key: 'order-1' });
      await waitFor(() => controller.events.length === 1 && listener.payloads.length === 1, {
        message: 'the @EventPattern and the @OnBroadcast handler both receive order 1',
      });
      expect(listener.payloads).toEqual([{ id: 1 }]);
      const [event] = controller.events;
      expect(event).toMatchObject({
        handler: 'onOrder',
        payload: { id: 1 },
        topic: 'orders',
      });
      expect(event.message).toMatchObject({
        topic: 'orders',
        key: 'order-1',
        payload: { id: 1 },
        partition: 0,
        offset: '0',
      });
      expect(event.message.timestamp).toBeGreaterThanOrEqual(before - 1000);

      // Through the ClientProxy: emit() publishes a broadcast.
      const client = app.get(BroadcastClient);
      await lastValueFrom(client.emit('orders', { id: 2 }), {
        defaultValue: undefined,
      });
      await lastValueFrom(client.emit('payments', { amount: 5 }), {
        defaultValue: undefined,
      });
      await waitFor(() => controller.events.length === 3 && listener.payloads.length === 2, {
        message: 'the emitted order and payment arrive',
      });
      expect(listener.payloads).toEqual([{ id: 1 }, { id: 2 }]);
      expect(
        controller.events
          .map((e) => [e.handler, e.topic, e.payload])
          .sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
      ).toEqual([
        ['onOrder', 'orders', { id: 1 }],
        ['onOrder', 'orders', { id: 2 }],
        ['onPayment', 'payments', { amount: 5 }],
      ]);
      expect(reader.status()).toMatchObject({ received: 3, failed: 0 });

      // Broadcasts have no replies.
      await expect(lastValueFrom(client.send('orders', { id: 3 }))).rejects.toThrow(
        /use emit\(\), not send\(\)/,
      );

      // One app, one group, one member: the transport did not open a consumer of its own.
      expect(await h.groups()).toEqual([reader.groupId]);
      const { members } = await h.describeGroup(reader.groupId!);
      expect(members).toHaveLength(1);
      // ... which reads the transport's topics along with the others.
      expect(members[0]!.topics.sort()).toEqual(
        ['broadcast.heartbeat.v1', 'broadcast.receipts.v1', 'orders', 'payments']
          .map((t) => h.prefix + t)
          .sort(),
      );
    });
  },
);
