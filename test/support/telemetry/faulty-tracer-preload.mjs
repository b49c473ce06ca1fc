// A tracing SDK that fails on some records, for the BroadcastInternalErrors scenario of
// test/ops/prometheus.spec.ts: loaded with `node --import ./faulty-tracer-preload.mjs main.js`
// (before the demo, which registers no tracer of its own without --trace), it registers a
// tracer provider whose startSpan throws for a consumer span whose parent, from the record's
// `traceparent` header, has the trace id FAULTY_TRACE_ID. Any other span is a non-recording one.
// The library contains such a throw around the record (the handler still runs) and counts it in
// broadcast_internal_errors_total: the instrumentation failing is the fault, not the demo.
import { INVALID_SPAN_CONTEXT, trace } from '@opentelemetry/api';

export const FAULTY_TRACE_ID = '0badc0de0badc0de0badc0de0badc0de';

const tracer = {
  startSpan(name, _options, context) {
    const parent = context && trace.getSpanContext(context);
    if (parent?.traceId === FAULTY_TRACE_ID)
      throw new Error(`faulty tracer: refusing span ${name} of trace ${FAULTY_TRACE_ID}`);
    return trace.wrapSpanContext(parent ?? INVALID_SPAN_CONTEXT);
  },
  startActiveSpan(name, ...args) {
    const fn = args.at(-1);
    return fn(this.startSpan(name));
  },
};

trace.setGlobalTracerProvider({ getTracer: () => tracer });
