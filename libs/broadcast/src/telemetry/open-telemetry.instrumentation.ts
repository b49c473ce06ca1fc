import {
  type Attributes,
  context,
  metrics,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import type {
  BroadcastInstrumentation,
  BroadcastTelemetrySource,
  HandlerObservation,
  HandlerOutcome,
  PublishObservation,
} from '../interfaces/broadcast-instrumentation.interface.js';
import type { BroadcastMessage } from '../interfaces/broadcast-message.interface.js';
import { errorMessage } from '../shared/async.utils.js';
import { BroadcastMetrics, type HandlerSeries } from './broadcast-metrics.js';
import { extractTraceContext, injectTraceContext } from './trace-context.js';

const CONSUMER = { kind: SpanKind.CONSUMER } as const;

/** Instrumentation scope name of every span and metric the library records. */
export const TELEMETRY_SCOPE = 'nestjs-kafka-broadcast';

/**
 * Traces and metrics through @opentelemetry/api, following the OpenTelemetry messaging
 * semantic conventions. Without an SDK registered by the application every call is a no-op
 * of the API itself. Loaded lazily by the engine (see load-instrumentation.ts), so the
 * package works without @opentelemetry/api installed.
 */
export class OpenTelemetryInstrumentation implements BroadcastInstrumentation {
  private readonly tracer: Tracer;
  private readonly metrics: BroadcastMetrics;

  constructor(private readonly source: BroadcastTelemetrySource) {
    this.tracer = trace.getTracer(TELEMETRY_SCOPE);
    this.metrics = new BroadcastMetrics(metrics.getMeter(TELEMETRY_SCOPE), source);
  }

  publish(fullTopic: string, headers: Record<string, string>): PublishObservation {
    const span = this.tracer.startSpan(`publish ${fullTopic}`, {
      kind: SpanKind.PRODUCER,
      attributes: {
        'messaging.system': 'kafka',
        'messaging.operation.type': 'send',
        'messaging.operation.name': 'publish',
        'messaging.destination.name': fullTopic,
      },
    });
    injectTraceContext(trace.setSpan(context.active(), span), headers);
    return { end: (error) => endSpan(span, error === undefined ? 'handled' : 'failed', error) };
  }

  handler(message: BroadcastMessage, handlerName: string): HandlerObservation {
    const series = this.metrics.series(this.source.topicPrefix + message.topic, handlerName);
    const parent = extractTraceContext(ROOT_CONTEXT, message.headers);
    const span = this.tracer.startSpan(series.spanName, CONSUMER, parent);
    // Attributes only for spans that are recorded: building them costs more than the span.
    if (span.isRecording()) span.setAttributes(this.consumerAttributes(series, message));
    const active = trace.setSpan(parent, span);
    const started = performance.now();
    return {
      run: (call) => context.with(active, call),
      end: (outcome, error) => {
        endSpan(span, outcome, error);
        this.metrics.handlerEnded(series, outcome, performance.now() - started, message.timestamp);
      },
    };
  }

  private consumerAttributes(series: HandlerSeries, message: BroadcastMessage): Attributes {
    const groupId = this.source.groupId();
    return {
      'messaging.system': 'kafka',
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'process',
      'messaging.destination.name': series.fullTopic,
      'messaging.destination.partition.id': String(message.partition),
      'messaging.kafka.offset': Number(message.offset),
      // Kafka has no message id; topic, partition and offset identify a record.
      'messaging.message.id': `${series.fullTopic}-${message.partition}@${message.offset}`,
      ...(groupId !== undefined && { 'messaging.consumer.group.name': groupId }),
      ...(message.key !== null && { 'messaging.kafka.message.key': message.key }),
      'broadcast.handler': series.handler,
    };
  }

  close(): void {
    this.metrics.close();
  }
}

function endSpan(span: Span, outcome: HandlerOutcome, error: unknown): void {
  if (outcome !== 'handled') {
    span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
    span.setAttribute(
      'error.type',
      outcome === 'timed-out' ? 'timeout' : error instanceof Error ? error.name : 'Error',
    );
    if (error instanceof Error) span.recordException(error);
  }
  span.end();
}
