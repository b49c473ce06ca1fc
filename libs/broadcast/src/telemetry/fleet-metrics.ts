import type { Attributes, BatchObservableCallback, Meter, Observable } from '@opentelemetry/api';
import type { BroadcastTelemetrySource } from '../interfaces/broadcast-instrumentation.interface.js';
import type { BroadcastStatus } from '../interfaces/broadcast-status.interface.js';

type WaitingFor = NonNullable<BroadcastStatus['waitingFor']>;
/** Every value of `broadcast.waiting_for`: each observed at every collection (see `waiting`). */
const WAITING_FOR: readonly WaitingFor[] = ['kafka', 'pool', 'group'];

/**
 * The gauges an operator's alert rules compare against (ops/prometheus/broadcast.rules.yml):
 * the pool's size and whether this instance waits for an id of it, the readiness bound on
 * staleness, whether the reader reports a problem, how long it has not been ready and what it
 * waits for meanwhile. Apart from BroadcastMetrics so that each file stays small; registered and
 * closed with it.
 */
export class FleetMetrics {
  private readonly observables: Observable[];
  private readonly observe: BatchObservableCallback;
  /** When a collection last saw the reader ready (the metrics' start before the first). */
  private readySeenAt = Date.now();

  constructor(
    private readonly meter: Meter,
    source: BroadcastTelemetrySource,
  ) {
    const poolSize = meter.createObservableGauge('broadcast.pool.size', {
      description: 'maxGroups: the ids of the pool <prefix><base>-<n> (attribute broadcast.pool)',
    });
    const poolExhausted = meter.createObservableGauge('broadcast.pool.exhausted', {
      description: '1 while every id of the pool is taken and this instance waits for one',
    });
    const poolExhaustions = meter.createObservableCounter('broadcast.pool.exhaustions', {
      description: 'Allocation passes that found the whole pool taken (attribute broadcast.pool)',
    });
    const stalenessLimit = meter.createObservableGauge('broadcast.staleness.limit', {
      description: 'health.maxStalenessMs: the readiness bound on broadcast.staleness',
      unit: 'ms',
    });
    // No text attribute: an observable's attribute sets outlive the values (the SDK keeps
    // reporting the last one), so a problem's text would stay at 1 after it cleared.
    const problem = meter.createObservableGauge('broadcast.problem', {
      description: '1 while the reader cannot read although retrying (status().problem)',
    });
    // How long the reader has not been ready, as collections see it (to a scrape interval):
    // a `for:` clause cannot be tuned from outside a rules file, a threshold on this can.
    const unready = meter.createObservableGauge('broadcast.unready.duration', {
      description: 'Time since the reader was last seen ready (0 while ready)',
      unit: 'ms',
    });
    // Every value at every collection, 1 for the current one: a value observed only while it
    // holds would stay at 1 in the exporter once the wait is over (as `problem` above).
    const waiting = meter.createObservableGauge('broadcast.waiting', {
      description:
        '1 for what the reader waits for while not ready (attribute broadcast.waiting_for: kafka, pool or group), 0 for the others',
    });
    this.observables = [
      poolSize,
      poolExhausted,
      poolExhaustions,
      stalenessLimit,
      problem,
      unready,
      waiting,
    ];

    const instance: Attributes = { 'broadcast.instance': source.instanceId };
    this.observe = (result) => {
      const s = source.status();
      const pool = source.pool?.();
      const pooled = pool ? { ...instance, 'broadcast.pool': pool.name } : instance;
      if (pool) {
        result.observe(poolSize, pool.maxGroups, pooled);
        result.observe(poolExhausted, s.poolExhausted ? 1 : 0, pooled);
      }
      result.observe(poolExhaustions, s.poolExhaustions, pooled);
      if (source.maxStalenessMs !== undefined)
        result.observe(stalenessLimit, source.maxStalenessMs, instance);
      result.observe(problem, s.problem === undefined ? 0 : 1, instance);
      const now = Date.now();
      if (s.state === 'ready') this.readySeenAt = now;
      result.observe(unready, now - this.readySeenAt, instance);
      // The reader names the wait; a pool exhausted is one even where it does not.
      const waitingFor = s.waitingFor ?? (s.poolExhausted ? 'pool' : undefined);
      for (const what of WAITING_FOR)
        result.observe(waiting, what === waitingFor ? 1 : 0, {
          ...instance,
          'broadcast.waiting_for': what,
        });
    };
    meter.addBatchObservableCallback(this.observe, this.observables);
  }

  /** Stops the observable callbacks (the engine stopped). */
  close(): void {
    this.meter.removeBatchObservableCallback(this.observe, this.observables);
  }
}
