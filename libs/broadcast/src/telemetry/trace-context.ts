import {
  type Context,
  createTraceState,
  INVALID_SPANID,
  INVALID_TRACEID,
  isSpanContextValid,
  propagation,
  type SpanContext,
  trace,
} from '@opentelemetry/api';
import { RecheckedValue } from './rechecked-value.js';

const TRACEPARENT = 'traceparent';
const TRACESTATE = 'tracestate';
const TRACEPARENT_FORMAT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

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

/** Extractions between two looks at which headers the global propagator reads. */
const RECHECK_CALLS = 1_024;

/**
 * Reads the publisher's context from a received message's headers. The W3C trace context is
 * parsed here, so that it works before (or without) an SDK's propagator; the application's
 * propagator, when it has one, extracts too (baggage, B3), and when it reads `traceparent`
 * itself this parse is skipped, so no header is parsed twice on the per-message path.
 */
export class TraceContextExtractor {
  /** Which headers the global propagator reads. */
  private readonly reads = new RecheckedValue(() => {
    const fields = propagation.fields();
    return {
      traceparent: fields.includes(TRACEPARENT),
      other: fields.some((field) => field !== TRACEPARENT && field !== TRACESTATE),
    };
  }, RECHECK_CALLS);

  extract(base: Context, headers: Readonly<Record<string, string>>): Context {
    const reads = this.reads.get();
    let ctx = base;
    if (!reads.traceparent) {
      const remote = parseTraceparent(headers[TRACEPARENT], headers[TRACESTATE]);
      if (remote) ctx = trace.setSpanContext(ctx, remote);
    }
    return reads.traceparent || reads.other ? propagation.extract(ctx, headers) : ctx;
  }
}

/** A valid remote span context from a version-00 `traceparent`, or undefined. */
function parseTraceparent(
  traceparent: string | undefined,
  tracestate: string | undefined,
): SpanContext | undefined {
  if (traceparent === undefined || !TRACEPARENT_FORMAT.test(traceparent)) return undefined;
  const traceId = traceparent.slice(3, 35);
  const spanId = traceparent.slice(36, 52);
  // The format already checked the hex digits; all zeros is the one invalid value left.
  if (traceId === INVALID_TRACEID || spanId === INVALID_SPANID) return undefined;
  return {
    traceId,
    spanId,
    traceFlags: parseInt(traceparent.slice(53, 55), 16),
    isRemote: true,
    ...(tracestate && { traceState: createTraceState(tracestate) }),
  };
}
