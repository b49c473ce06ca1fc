import {
  type Attributes,
  context,
  createNoopMeter,
  INVALID_SPAN_CONTEXT,
  metrics,
  ProxyTracerProvider,
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
  TelemetrySignals,
} from '../interfaces/broadcast-instrumentation.interface.js';
import type { BroadcastMessage } from '../interfaces/broadcast-message.interface.js';
import { errorMessage } from '../shared/async.utils.js';
import { NO_INSTRUMENTATION } from '../interfaces/no-instrumentation.js';
import { BroadcastMetrics, type HandlerSeries } from './broadcast-metrics.js';
import { FleetMetrics } from './fleet-metrics.js';
import { RecheckedValue } from './rechecked-value.js';
import { injectTraceContext, TraceContextExtractor } from './trace-context.js';

const CONSUMER = { kind: SpanKind.CONSUMER } as const;
/** The API's no-op provider: the delegate of a proxy no SDK was registered with. */
const NO_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();
/** How many handler calls go by before looking again whether a tracer provider was registered. */
const TRACING_RECHECK_CALLS = 1_024;

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
  private readonly fleet: FleetMetrics;
  /**
   * Whether to trace: the `telemetry.traces` option, and a tracer provider registered by the
   * application (without one every span would be the API's no-op). Looked up again on calls
   * whose latencies are recorded (all of them at ordinary rates, at most the budget per second)
   * and every TRACING_RECHECK_CALLS calls.
   */
  private readonly tracing = new RecheckedValue(() => {
    if (!this.signals.traces) return false;
    const provider = trace.getTracerProvider();
    const delegate = provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider;
    return delegate !== NO_TRACER_PROVIDER;
  }, TRACING_RECHECK_CALLS);
  private readonly extractor = new TraceContextExtractor();

  constructor(
    private readonly source: BroadcastTelemetrySource,
    private readonly signals: TelemetrySignals,
  ) {
    this.tracer = trace.getTracer(TELEMETRY_SCOPE);
    // Without metrics the series still count outcomes in plain numbers; nothing reads them.
    const meter = signals.metrics ? metrics.getMeter(TELEMETRY_SCOPE) : createNoopMeter();
    this.metrics = new BroadcastMetrics(meter, source);
    this.fleet = new FleetMetrics(meter, source);
  }

  publish(fullTopic: string, headers: Record<string, string>): PublishObservation {
    // Untraced: no span and no trace headers (the caller's context is not propagated either).
    if (!this.signals.traces) return NO_INSTRUMENTATION.publish(fullTopic, headers);
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
    const series = this.metrics.series(message.topic, handlerName);
    const started = series.budget.take();
    const tracing = this.tracing.get(started !== undefined);
    // Untraced: metrics only, no span and no context. Without latencies to record (most calls
    // once a busy topic spent its budget) nothing is allocated either.
    if (!tracing)
      return started === undefined
        ? series.untimed
        : {
            run: (call) => call(),
            end: (outcome) => this.ended(series, outcome, started, message.timestamp),
          };
    const parent = hasAny(message.headers)
      ? this.extractor.extract(ROOT_CONTEXT, message.headers)
      : ROOT_CONTEXT;
    const span = this.tracer.startSpan(series.spanName, CONSUMER, parent);
    // Attributes only for spans that are recorded: building them costs more than the span.
    if (span.isRecording()) span.setAttributes(this.consumerAttributes(series, message));
    // An invalid span with no parent has nothing for the handler's own spans to nest under.
    const active =
      parent === ROOT_CONTEXT && span.spanContext() === INVALID_SPAN_CONTEXT
        ? undefined
        : trace.setSpan(parent, span);
    return {
      run: active ? (call) => context.with(active, call) : (call) => call(),
      end: (outcome, error) => {
        endSpan(span, outcome, error);
        this.ended(series, outcome, started, message.timestamp);
      },
    };
  }

  /** Counts a call's outcome and, when it was given a token at its start, its latencies. */
  private ended(
    series: HandlerSeries,
    outcome: HandlerOutcome,
    started: number | undefined,
    producedAt: number,
  ): void {
    series.outcomes[outcome]++;
    if (started !== undefined)
      this.metrics.latenciesRecorded(series, performance.now() - started, producedAt);
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
    this.fleet.close();
  }
}

function hasAny(headers: Readonly<Record<string, string>>): boolean {
  for (const _ in headers) return true;
  return false;
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
