/**
 * The demo's `GET /metrics` against the real broker: the app runs in-process with the demo's
 * OpenTelemetry setup (Prometheus exporter), handles a good, a failing (tried three times, then
 * dead-lettered) and a malformed broadcast, and the scraped text is parsed with an npm
 * Prometheus text-format parser.
 */
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { BroadcastEngine, BroadcastHeartbeat } from 'nestjs-kafka-broadcast';
import { AppModule } from '../../apps/demo/src/app.module.js';
import { PRODUCT_CHANGED } from '../../apps/demo/src/products/product-changed.event.js';
import {
  startDemoTelemetry,
  type DemoTelemetry,
} from '../../apps/demo/src/telemetry/demo-telemetry.js';
import { clientScoped, kafkaClients } from '../support/broker/kafka-clients.js';
import { kafkaBrokers, newAdmin, newKafka, testPrefix, waitFor } from '../support/broker/kafka.js';

describe.each(kafkaClients())('%s client', (kafkaClient) => {
  const prefix = testPrefix(clientScoped('otel-metrics', kafkaClient));
  let telemetry: DemoTelemetry;
  let app: INestApplication;

  beforeAll(async () => {
    telemetry = startDemoTelemetry({ trace: false });
    app = await NestFactory.create(
      AppModule.forRoot({
        port: 0,
        host: '127.0.0.1',
        brokers: kafkaBrokers(),
        topicPrefix: prefix,
        instanceName: 'metrics-a',
        heartbeatIntervalMs: 300,
        database: undefined,
        ssl: undefined,
        sasl: undefined,
        kafkaClient,
        startupTimeoutMs: 60_000,
        waitForReady: true,
        maxGroups: undefined,
        deadLetterTopic: 'dead-letters',
        failureWebhook: undefined,
      }),
      { logger: false },
    );
    await app.listen(0, '127.0.0.1');
  });

  afterAll(async () => {
    await app?.close();
    await telemetry?.shutdown();
    const admin = await newAdmin();
    try {
      const groups = (await admin.listGroups()).groups
        .map((g) => g.groupId)
        .filter((g) => g.startsWith(prefix));
      if (groups.length) await admin.deleteGroups(groups);
      const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
      if (topics.length) await admin.deleteTopics({ topics });
    } finally {
      await admin.disconnect();
    }
  });

  async function scrape(): Promise<{ text: string; families: Map<string, PrometheusFamily> }> {
    const response = await fetch(`${await app.getUrl()}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await response.text();
    return { text, families: new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f])) };
  }

  function value(
    families: Map<string, PrometheusFamily>,
    name: string,
    labels: Record<string, string> = {},
  ): number | undefined {
    const sample = families
      .get(name)
      ?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
    return sample?.value === undefined ? undefined : Number(sample.value);
  }

  describe('demo GET /metrics (Prometheus text format)', () => {
    it('counts handled, failed and skipped broadcasts, with latency histograms and state gauges', async () => {
      const engine = app.get(BroadcastEngine);
      await engine.publisher.publish(PRODUCT_CHANGED, { id: 1, changedAt: Date.now() });
      await engine.publisher.publish(PRODUCT_CHANGED, { name: 'no id: the handler throws' });
      // Targeted at another instance: skipped before any handler, counted as filtered.
      await engine.publisher.publish(
        PRODUCT_CHANGED,
        { id: 2, changedAt: Date.now() },
        { to: { instances: ['elsewhere'] } },
      );
      const producer = newKafka('otel-metrics-raw').producer();
      await producer.connect();
      try {
        await producer.send({ topic: prefix + PRODUCT_CHANGED, messages: [{ value: 'not json' }] });
      } finally {
        await producer.disconnect();
      }
      await waitFor(() => {
        const s = engine.reader.status();
        return (
          s.received === 3 &&
          s.failed === 3 &&
          s.deadLettered === 1 &&
          s.skipped === 1 &&
          s.filtered === 1 &&
          app.get(BroadcastHeartbeat).sent > 0
        );
      });

      const { text, families } = await scrape();
      const topic = { messaging_destination_name: prefix + PRODUCT_CHANGED };
      const instance = { broadcast_instance: 'metrics-a' };
      expect(value(families, 'broadcast_messages_handled_total', topic), text).toBe(1);
      // The demo's handler is tried three times: each attempt counts, the last one is final.
      expect(value(families, 'broadcast_messages_failed_total', topic), text).toBe(3);
      expect(value(families, 'broadcast_handler_retries_total', instance), text).toBe(2);
      expect(value(families, 'broadcast_handler_exhausted_total', instance), text).toBe(1);
      expect(value(families, 'broadcast_dead_letter_published_total', instance), text).toBe(1);
      expect(value(families, 'broadcast_messages_received_total', instance), text).toBe(3);
      expect(value(families, 'broadcast_messages_skipped_total', instance), text).toBe(1);
      expect(value(families, 'broadcast_messages_filtered_total', instance), text).toBe(1);
      expect(value(families, 'broadcast_messages_invalid_total', instance), text).toBe(0);
      expect(value(families, 'broadcast_heartbeats_sent_total', instance)).toBeGreaterThan(0);
      expect(value(families, 'broadcast_heartbeats_received_total', instance)).toBeGreaterThan(0);
      expect(value(families, 'broadcast_state', { ...instance, broadcast_state: 'ready' })).toBe(1);
      expect(value(families, 'broadcast_state', { ...instance, broadcast_state: 'starting' })).toBe(
        0,
      );
      expect(value(families, 'broadcast_staleness', instance)).toBeGreaterThanOrEqual(0);
      const groupId = engine.reader.status().groupId!;
      expect(
        value(families, 'broadcast_group', { ...instance, messaging_consumer_group_name: groupId }),
      ).toBe(1);

      // Histograms: the parser reads the buckets; it drops the labels and the count when
      // `_count` comes before the buckets, as the OpenTelemetry exporter writes them, so the
      // per-topic series is also checked in the text.
      for (const name of ['broadcast_fanout_latency', 'broadcast_handler_duration']) {
        const family = families.get(name);
        expect(family?.type, text).toBe('HISTOGRAM');
        expect(family!.metrics).toHaveLength(1);
        const buckets = family!.metrics[0]!.buckets!;
        // One handled call and three failed attempts.
        expect(Number(buckets['+Inf'])).toBe(4);
        const counts = Object.values(buckets).map(Number);
        expect(counts).toEqual([...counts].sort((x, y) => x - y));
        expect(text).toContain(
          `${name}_count{messaging_destination_name="${topic.messaging_destination_name}",`,
        );
      }
    });
  });
});
