// Makes an instance.mjs child a demo-like instance with a Prometheus endpoint, as apps/demo does
// (its MetricsController hands GET /metrics to the exporter): loaded with
// `node --import ./metrics-preload.mjs instance.mjs` (InstanceConfig.nodeArgs), it registers
// the OpenTelemetry SDK before the engine is built and serves the exporter's text on a free port
// of 127.0.0.1, announced as the stdout line { event: 'metrics', port }.
import { createServer } from 'node:http';
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';

const exporter = new PrometheusExporter({ preventServerStart: true });
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [exporter] }));

const server = createServer((request, response) =>
  exporter.getMetricsRequestHandler(request, response),
);
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(`${JSON.stringify({ event: 'metrics', port, at: Date.now() })}\n`);
});
// instance.mjs ends the process with process.exit; the server must not hold it before that.
server.unref();
