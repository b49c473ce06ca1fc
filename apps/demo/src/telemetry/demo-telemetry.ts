import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/** The OpenTelemetry SDK the demo registers: Prometheus metrics, optionally console traces. */
export interface DemoTelemetry {
  /** Serves `GET /metrics` (no server of its own: the Nest app serves it). */
  readonly prometheus: PrometheusExporter;
  readonly tracing: boolean;
  shutdown(): Promise<void>;
}

let current: DemoTelemetry | undefined;

/**
 * Registers the SDK globally. Call it before the Nest app is created: the OpenTelemetry
 * metrics API binds instruments to the meter provider present when they are created.
 */
export function startDemoTelemetry(options: { trace: boolean }): DemoTelemetry {
  if (current) return current;
  const prometheus = new PrometheusExporter({ preventServerStart: true });
  const meterProvider = new MeterProvider({ readers: [prometheus] });
  metrics.setGlobalMeterProvider(meterProvider);
  const tracerProvider = options.trace
    ? new BasicTracerProvider({
        spanProcessors: [new SimpleSpanProcessor(new ConsoleSpanExporter())],
      })
    : undefined;
  if (tracerProvider) {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(tracerProvider);
  }
  const started: DemoTelemetry = {
    prometheus,
    tracing: options.trace,
    shutdown: async () => {
      current = undefined;
      await Promise.all([meterProvider.shutdown(), tracerProvider?.shutdown()]);
      metrics.disable();
      if (tracerProvider) {
        trace.disable();
        context.disable();
      }
    },
  };
  return (current = started);
}

/** The telemetry started by main.ts (or a test). */
export function demoTelemetry(): DemoTelemetry {
  if (!current) throw new Error('startDemoTelemetry() was not called before the app was created');
  return current;
}

/** `--trace` on the command line or DEMO_TRACE=1 sends spans to the console. */
export function tracingRequested(argv = process.argv, env = process.env): boolean {
  return argv.includes('--trace') || env.DEMO_TRACE === '1';
}
