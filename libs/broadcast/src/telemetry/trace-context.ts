import {
  type Context,
  createTraceState,
  isSpanContextValid,
  propagation,
  type SpanContext,
  trace,
} from '@opentelemetry/api';

const TRACEPARENT = 'traceparent';
const TRACESTATE = 'tracestate';
const TRACEPARENT_FORMAT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * Writes the W3C trace context of `ctx` into Kafka headers. Done here rather than only through
 * the global propagator, which is a no-op until an SDK installs one; a propagator the
 * application did install (baggage, B3) still adds its own headers.
 */
export function injectTraceContext(ctx: Context, headers: Record<string, string>): void {
  const span = trace.getSpanContext(ctx);
  if (span && isSpanContextValid(span)) {
    const flags = (span.traceFlags & 0xff).toString(16).padStart(2, '0');
    headers[TRACEPARENT] = `00-${span.traceId}-${span.spanId}-${flags}`;
    const state = span.traceState?.serialize();
    if (state) headers[TRACESTATE] = state;
  }
  propagation.inject(ctx, headers);
}

/** The publisher's context from a received message's headers, on top of `base`. */
export function extractTraceContext(
  base: Context,
  headers: Readonly<Record<string, string>>,
): Context {
  let ctx = base;
  const traceparent = headers[TRACEPARENT];
  const parsed = traceparent === undefined ? null : TRACEPARENT_FORMAT.exec(traceparent);
  if (parsed) {
    const remote: SpanContext = {
      traceId: parsed[1]!,
      spanId: parsed[2]!,
      traceFlags: parseInt(parsed[3]!, 16),
      isRemote: true,
      ...(headers[TRACESTATE] && { traceState: createTraceState(headers[TRACESTATE]) }),
    };
    if (isSpanContextValid(remote)) ctx = trace.setSpanContext(ctx, remote);
  }
  return propagation.extract(ctx, headers);
}
