/**
 * BroadcastPublisher.publish with key and headers: what the handler's BroadcastMessage carries.
 */
import { Injectable } from '@nestjs/common';
import {
  BroadcastModule,
  BroadcastPublisher,
  OnBroadcast,
  type BroadcastMessage,
} from 'nestjs-kafka-broadcast';
import { waitFor } from '../support/broker/kafka.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';
import { postgresRoot, useNestHarness } from '../support/nest/nest.js';

interface Invoice {
  id: string;
  lines: { sku: string; qty: number }[];
  paid: boolean;
  note: string | null;
}

@Injectable()
class InvoiceListener {
  readonly messages: {
    payload: Invoice;
    message: BroadcastMessage<Invoice>;
  }[] = [];

  @OnBroadcast('billing.invoices')
  onInvoice(payload: Invoice, message: BroadcastMessage<Invoice>) {
    this.messages.push({ payload, message });
  }
}

describe.each(kafkaClients())('BroadcastPublisher.publish, %s client', (client) => {
  it('delivers key, headers, broker timestamp, partition, offset, logical topic and payload', async () => {
    const h = useNestHarness('messages', undefined, client);
    const app = await h.start({
      imports: [postgresRoot(), BroadcastModule.forRoot(h.options())],
      providers: [InvoiceListener],
    });
    const listener = app.get(InvoiceListener);
    const publisher = app.get(BroadcastPublisher);

    const invoice: Invoice = {
      id: 'inv-1',
      lines: [{ sku: 'sku-1', qty: 2 }],
      paid: false,
      note: 'héllo ✓',
    };
    const before = Date.now();
    await publisher.publish('billing.invoices', invoice, {
      key: 'customer-42',
      headers: { 'x-trace-id': 'trace-abc', 'content-kind': 'invoice' },
    });
    await publisher.publish('billing.invoices', {
      ...invoice,
      id: 'inv-2',
      paid: true,
      note: null,
    });
    await waitFor(() => listener.messages.length === 2, {
      message: 'both invoices are received',
    });
    const after = Date.now();

    const [first, second] = listener.messages;
    expect(first.message).toEqual({
      topic: 'billing.invoices', // without the prefix
      key: 'customer-42',
      headers: { 'x-trace-id': 'trace-abc', 'content-kind': 'invoice' },
      timestamp: expect.any(Number),
      partition: 0,
      offset: '0',
      payload: invoice,
    });
    expect(first.payload).toEqual(invoice);
    expect(first.message.payload).toBe(first.payload);
    expect(first.message.timestamp).toBeGreaterThanOrEqual(before - 1_000);
    expect(first.message.timestamp).toBeLessThanOrEqual(after);

    // No key, no headers.
    expect(second.message).toMatchObject({
      topic: 'billing.invoices',
      key: null,
      headers: {},
      partition: 0,
      offset: '1',
    });
    expect(second.payload).toEqual({
      ...invoice,
      id: 'inv-2',
      paid: true,
      note: null,
    });
    expect(second.message.timestamp).toBeGreaterThanOrEqual(first.message.timestamp);

    // The broker agrees: both records sit in the prefixed topic at offsets 0 and 1.
    const offsets = await (await h.admin()).fetchTopicOffsets(`${h.prefix}billing.invoices`);
    expect(offsets).toEqual([expect.objectContaining({ partition: 0, low: '0', high: '2' })]);
  });
});
