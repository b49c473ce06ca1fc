import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { notAliveReason, notReadyReason } from './broadcast-health.rules.js';
import { OutageGrace } from './outage-grace.js';
import { waitingFor } from '../waiting-for.js';
import { BroadcastEngine } from '../../views/broadcast-engine.view.js';
import { errorMessage } from '../../shared/async.utils.js';
import { isBroadcastStoppedError } from '../../errors/broadcast-stopped.error.js';
import type { BroadcastStatus } from '../../interfaces/broadcast-status.interface.js';

/**
 * Terminus indicators for Kubernetes-style probes:
 * - `isAlive(key)` (liveness): up while the engine runs or recovers by itself (starting, ready,
 *   recovering, a broker outage included); down once it stopped, failed to start, or stayed not
 *   ready longer than `health.maxUnreadyMs` (no limit by default).
 * - `isReady(key)` (readiness): up while the reader holds its group and, with heartbeats, the
 *   newest broadcast seen (heartbeats included) is no older than `health.maxStalenessMs`; with
 *   `heartbeat: false`, up once the reader holds its group. Down, the reason says what the
 *   reader waits for (Kafka, a pool id, its group), as the details' `waitingFor` does. Through a
 *   Kafka outage an instance that was ready stays up for `health.outageGraceMs` (60 s by
 *   default; none with `health.strict: true`), its details' `outage` naming the wait (see
 *   OutageGrace): Kafka away is away for the whole fleet, and emptying the Service gains nothing.
 * - `isHealthy(key)`: the same as `isReady(key)`, kept for existing health endpoints.
 */
@Injectable()
export class BroadcastHealthIndicator {
  /** Since when the reader has been seen not ready (from construction: it starts so). */
  private unreadySince: number | undefined = Date.now();
  private startupFailure: string | undefined;
  /** Readiness's grace through a Kafka outage; none with health.strict. */
  private readonly grace: OutageGrace | undefined;

  constructor(
    private readonly health: HealthIndicatorService,
    @Inject(BroadcastEngine) private readonly engine: BroadcastEngine,
  ) {
    const { outageGraceMs } = engine.options;
    this.grace = outageGraceMs === undefined ? undefined : new OutageGrace(outageGraceMs);
    // Rejected when start() gave up for good, or when the engine stopped before ready: only the
    // first is a startup failure (a stop is said by the state).
    engine.reader.whenReady().catch((error: unknown) => {
      if (!isBroadcastStoppedError(error)) this.startupFailure = errorMessage(error);
    });
  }

  /** Liveness: down only when a restart is what it takes (see the class comment). */
  isAlive<const Key extends string = 'broadcast'>(key: Key = 'broadcast' as Key) {
    const indicator = this.health.check(key);
    const status = this.status();
    const unreadyForMs = this.unreadyFor(status.state);
    const { maxUnreadyMs } = this.engine.options;
    const details = {
      ...status,
      ...(maxUnreadyMs !== undefined && { maxUnreadyMs }),
      ...(unreadyForMs !== undefined && { unreadyForMs }),
    };
    const reason = notAliveReason(status, {
      startupFailure: this.startupFailure,
      unreadyForMs,
      maxUnreadyMs,
    });
    return reason ? indicator.down({ ...details, reason }) : indicator.up(details);
  }

  /** Readiness: up while this instance holds its group and (with heartbeats) its view is fresh. */
  isReady<const Key extends string = 'broadcast'>(key: Key = 'broadcast' as Key) {
    const indicator = this.health.check(key);
    const status = this.status();
    this.unreadyFor(status.state);
    const { heartbeat, maxGroups } = this.engine.options;
    const maxStalenessMs = heartbeat ? this.engine.options.maxStalenessMs : undefined;
    const details = { ...status, ...(maxStalenessMs !== undefined && { maxStalenessMs }) };
    const reason = notReadyReason(status, { maxStalenessMs, maxGroups });
    const fresh =
      maxStalenessMs === undefined ||
      (status.lastLatencyMs !== undefined && status.lastLatencyMs <= maxStalenessMs);
    const grace = this.grace?.judge(status, reason, fresh) ?? { kind: 'none' };
    if (grace.kind === 'riding') return indicator.up({ ...details, outage: grace.outage });
    if (grace.kind === 'expired')
      return indicator.down({
        ...details,
        outage: grace.outage,
        reason: `${reason}; Kafka away for ${grace.outage.forMs} ms (health.outageGraceMs ${grace.outage.graceMs})`,
      });
    return reason ? indicator.down({ ...details, reason }) : indicator.up(details);
  }

  /** The same as isReady(key): readiness, which is what this check always measured. */
  isHealthy<const Key extends string = 'broadcast'>(key: Key = 'broadcast' as Key) {
    return this.isReady(key);
  }

  /** The reader's status, with what it waits for named (see waitingFor). */
  private status(): BroadcastStatus {
    const status = this.engine.reader.status();
    const wait = waitingFor(status);
    return wait === status.waitingFor ? status : { ...status, waitingFor: wait };
  }

  /**
   * How long the reader has been not ready, as seen by the checks (a probe every few seconds
   * bounds the error); undefined while ready.
   */
  private unreadyFor(state: string): number | undefined {
    const now = Date.now();
    if (state === 'ready') this.unreadySince = undefined;
    else this.unreadySince ??= now;
    return this.unreadySince === undefined ? undefined : now - this.unreadySince;
  }
}
