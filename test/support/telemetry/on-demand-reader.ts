import { AggregationTemporality, MetricReader } from '@opentelemetry/sdk-metrics';

/** A metric reader collected on demand, cumulative, like a Prometheus scrape. */
export class OnDemandReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}
