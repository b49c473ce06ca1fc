import type { Attributes, BatchObservableCallback, Meter, Observable } from '@opentelemetry/api';
import type {
  HandlerObservation,
  HandlerOutcome,
} from '../interfaces/broadcast-instrumentation.interface.js';
import type { BroadcastTelemetrySource } from '../interfaces/broadcast-instrumentation.interface.js';
import type { BroadcastState } from '../interfaces/broadcast-status.interface.js';
import { CountingObservation } from './counting-observation.js';
import { RecordingBudget } from './recording-budget.js';

/** One (topic, handler) pair: its attributes are built once, its outcome counts kept here. */
export interface HandlerSeries {
  readonly fullTopic: string;
  readonly handler: string;
  readonly spanName: string;
  readonly attributes: Attributes;
  /** Histograms are per topic only: the SDK hashes the attributes of every recorded value. */
  readonly topicAttributes: Attributes;
  readonly outcomes: Record<HandlerOutcome, number>;
  /** Shared by the topic's handlers: how many latency values per second reach the SDK. */
  readonly budget: RecordingBudget;
  /** The observation of a call with no span and no latency to record: it only counts. */
  readonly untimed: HandlerObservation;
}

/** Latency values recorded per topic and second at most (see RecordingBudget). */
export const HISTOGRAM_VALUES_PER_SECOND = 1_000;

const STATES: readonly BroadcastState[] = ['starting', 'ready', 'recovering', 'stopped'];
/** Fan-out on loopback is a few ms; a stalled instance shows up in the seconds buckets. */
const LATENCY_BUCKETS_MS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000];

/**
 * The engine's metrics through the OpenTelemetry metrics API. Outcome counters and the two
 * histograms are recorded per handler call; totals the engine already keeps (received,
 * skipped, heartbeats) and its state are read by observable instruments at collection time.
 */
export class BroadcastMetrics {
  /** Logical topic → handler name → series. */
  private readonly handlerSeries = new Map<string, Map<string, HandlerSeries>>();
  private readonly fanOutLatency;
  private readonly handlerDuration;
  private readonly observables: Observable[];
  private readonly observe: BatchObservableCallback;

  private readonly instanceId: string;
  private readonly topicPrefix: string;

  constructor(
    private readonly meter: Meter,
    source: BroadcastTelemetrySource,
  ) {
    this.instanceId = source.instanceId;
    this.topicPrefix = source.topicPrefix;
    // Outcomes are counted in plain numbers per series and observed at collection time:
    // recording each one through the SDK would hash its attributes on every message.
    const counter = (name: string, description: string) =>
      meter.createObservableCounter(name, { description, unit: '{message}' });
    const outcomes = {
      handled: counter('broadcast.messages.handled', 'Handler calls that completed'),
      failed: counter('broadcast.messages.failed', 'Handler calls that threw or rejected'),
      'timed-out': counter('broadcast.messages.timed_out', 'Handler calls that timed out'),
    } satisfies Record<HandlerOutcome, unknown>;
    const histogram = (name: string, description: string) =>
      meter.createHistogram(name, {
        description,
        unit: 'ms',
        advice: { explicitBucketBoundaries: LATENCY_BUCKETS_MS },
      });
    this.fanOutLatency = histogram(
      'broadcast.fanout.latency',
      'Producer timestamp to the end of the handler call',
    );
    this.handlerDuration = histogram('broadcast.handler.duration', 'Handler call duration');

    const received = meter.createObservableCounter('broadcast.messages.received', {
      description: 'Broadcasts received (heartbeats excluded)',
    });
    const skipped = meter.createObservableCounter('broadcast.messages.skipped', {
      description: 'Broadcasts skipped: empty or not JSON',
    });
    const filtered = meter.createObservableCounter('broadcast.messages.filtered', {
      description: 'Broadcasts targeted at other instances, skipped before any handler',
    });
    const invalid = meter.createObservableCounter('broadcast.messages.invalid', {
      description: "Broadcasts whose payload failed the topic's schema, skipped before any handler",
    });
    const refused = meter.createObservableCounter('broadcast.messages.refused', {
      description:
        "Records below the engine's read position (redelivered by the client), never handed over",
    });
    const internalErrors = meter.createObservableCounter('broadcast.internal_errors', {
      description: 'A logger, instrumentation or validator that threw around a record: contained',
    });
    const passedOver = meter.createObservableCounter('broadcast.messages.passed_over', {
      description: 'Records the log no longer held when this instance got there (a counted gap)',
    });
    const rewinds = meter.createObservableCounter('broadcast.rewinds', {
      description: "Times the log ended before this instance's position (truncation)",
    });
    // The failure policy (handler option `retry`, module options onHandlerError and deadLetter).
    const retries = meter.createObservableCounter('broadcast.handler.retries', {
      description: 'Handler calls scheduled again after a failure',
    });
    const exhausted = meter.createObservableCounter('broadcast.handler.exhausted', {
      description: 'Handlers of a message whose last attempt failed (final failures)',
    });
    const retriesShed = meter.createObservableCounter('broadcast.handler.retries_shed', {
      description: 'Failures not retried because maxPendingRetries retries were pending',
    });
    const deadLettered = meter.createObservableCounter('broadcast.dead_letter.published', {
      description: 'Records published to the dead-letter topic',
    });
    const deadLetterFailures = meter.createObservableCounter('broadcast.dead_letter.failed', {
      description: 'Dead letters the broker did not take',
    });
    const hookFailures = meter.createObservableCounter('broadcast.hook.failed', {
      description: 'onHandlerError calls that threw, rejected or timed out',
    });
    const sent = meter.createObservableCounter('broadcast.heartbeats.sent', {
      description: 'Heartbeats this instance sent',
    });
    const heard = meter.createObservableCounter('broadcast.heartbeats.received', {
      description: 'Heartbeats this instance received (its own included)',
    });
    const state = meter.createObservableGauge('broadcast.state', {
      description: '1 for the current reader state, 0 for the others',
    });
    const staleness = meter.createObservableGauge('broadcast.staleness', {
      description: 'Now minus the newest message timestamp seen (lastLatencyMs)',
      unit: 'ms',
    });
    const group = meter.createObservableGauge('broadcast.group', {
      description: '1, with the consumer group and lock id held as attributes',
    });
    const lockId = meter.createObservableGauge('broadcast.lock.id', {
      description: 'The advisory lock id held (the n of <prefix><base>-<n>)',
    });
    this.observables = [
      ...Object.values(outcomes),
      received,
      skipped,
      filtered,
      invalid,
      refused,
      internalErrors,
      passedOver,
      rewinds,
      retries,
      exhausted,
      retriesShed,
      deadLettered,
      deadLetterFailures,
      hookFailures,
      sent,
      heard,
      state,
      staleness,
      group,
      lockId,
    ];

    const instance: Attributes = { 'broadcast.instance': source.instanceId };
    this.observe = (result) => {
      for (const byHandler of this.handlerSeries.values())
        for (const series of byHandler.values())
          for (const outcome of Object.keys(outcomes) as HandlerOutcome[])
            result.observe(outcomes[outcome], series.outcomes[outcome], series.attributes);
      const s = source.status();
      const beats = source.heartbeats();
      result.observe(received, s.received, instance);
      result.observe(skipped, s.skipped, instance);
      result.observe(filtered, s.filtered, instance);
      result.observe(invalid, s.invalid, instance);
      result.observe(refused, s.refused, instance);
      result.observe(internalErrors, s.internalErrors, instance);
      result.observe(passedOver, s.passedOver, instance);
      result.observe(rewinds, s.rewinds, instance);
      result.observe(retries, s.retries, instance);
      result.observe(exhausted, s.exhausted, instance);
      result.observe(retriesShed, s.retriesShed, instance);
      result.observe(deadLettered, s.deadLettered, instance);
      result.observe(deadLetterFailures, s.deadLetterFailures, instance);
      result.observe(hookFailures, s.hookFailures, instance);
      result.observe(sent, beats.sent, instance);
      result.observe(heard, beats.received, instance);
      for (const name of STATES)
        result.observe(state, name === s.state ? 1 : 0, { ...instance, 'broadcast.state': name });
      if (s.lastLatencyMs !== undefined) result.observe(staleness, s.lastLatencyMs, instance);
      if (s.groupId !== undefined) {
        result.observe(group, 1, {
          ...instance,
          'messaging.consumer.group.name': s.groupId,
          'broadcast.lock.id': s.lockId ?? -1,
          'broadcast.lock.mode': s.lockMode,
        });
      }
      if (s.lockId !== undefined) result.observe(lockId, s.lockId, instance);
    };
    meter.addBatchObservableCallback(this.observe, this.observables);
  }

  /**
   * The series of a topic and handler, made on first use. Looked up by the logical topic, as
   * messages carry it: building the full name on every call would cost a string per message.
   */
  series(topic: string, handler: string): HandlerSeries {
    let byHandler = this.handlerSeries.get(topic);
    if (!byHandler) this.handlerSeries.set(topic, (byHandler = new Map()));
    let series = byHandler.get(handler);
    if (!series) {
      const sibling = byHandler.values().next().value;
      const outcomes: Record<HandlerOutcome, number> = { handled: 0, failed: 0, 'timed-out': 0 };
      const fullTopic = this.topicPrefix + topic;
      series = {
        fullTopic,
        handler,
        spanName: `process ${fullTopic}`,
        attributes: {
          'messaging.destination.name': fullTopic,
          'broadcast.handler': handler,
          'broadcast.instance': this.instanceId,
        },
        topicAttributes: sibling?.topicAttributes ?? { 'messaging.destination.name': fullTopic },
        outcomes,
        untimed: new CountingObservation(outcomes),
        budget: sibling?.budget ?? new RecordingBudget(HISTOGRAM_VALUES_PER_SECOND),
      };
      byHandler.set(handler, series);
    }
    return series;
  }

  /**
   * One handler call ended; `producedAt` is the record's timestamp (epoch ms). Its latencies
   * are recorded when the call was given a token at its start (`budget.take`).
   */
  latenciesRecorded(series: HandlerSeries, durationMs: number, producedAt: number): void {
    this.handlerDuration.record(durationMs, series.topicAttributes);
    this.fanOutLatency.record(Math.max(0, Date.now() - producedAt), series.topicAttributes);
  }

  /** Stops the observable callbacks (the engine stopped). */
  close(): void {
    this.meter.removeBatchObservableCallback(this.observe, this.observables);
  }
}
