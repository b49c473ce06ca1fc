import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { BroadcastEngine } from './engine/broadcast.engine.js';
import { BroadcastMessages } from './errors/broadcast.messages.js';
import type { BroadcastStatus } from './interfaces/broadcast-status.interface.js';

/**
 * Terminus indicator: up while the reader holds its group and the newest broadcast seen
 * (heartbeats included) is no older than health.maxStalenessMs.
 */
@Injectable()
export class BroadcastHealthIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    @Inject(BroadcastEngine) private readonly engine: BroadcastEngine,
  ) {}

  isHealthy<const Key extends string = 'broadcast'>(key: Key = 'broadcast' as Key) {
    const indicator = this.health.check(key);
    const status = this.engine.reader.status();
    const maxStalenessMs = this.engine.options.maxStalenessMs;
    const details = { ...status, maxStalenessMs };
    const reason = downReason(status, maxStalenessMs, this.engine.options.maxGroups);
    return reason ? indicator.down({ ...details, reason }) : indicator.up(details);
  }
}

function downReason(
  status: BroadcastStatus,
  maxStalenessMs: number,
  maxGroups: number,
): string | undefined {
  if (status.poolExhausted) return BroadcastMessages.poolExhausted(maxGroups);
  // A problem retrying cannot fix (e.g. a missing ACL) says more than the state it causes.
  if (status.state !== 'ready')
    return status.problem
      ? `reader is ${status.state}: ${status.problem}`
      : `reader is ${status.state}`;
  if (status.lastLatencyMs === undefined) return 'no broadcast received yet';
  if (status.lastLatencyMs > maxStalenessMs)
    return `newest broadcast is ${status.lastLatencyMs} ms old`;
  return undefined;
}
