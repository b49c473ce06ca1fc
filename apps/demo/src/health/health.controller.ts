import { Controller, Get, Inject } from '@nestjs/common';
import {
  HealthCheck,
  HealthCheckService,
  TypeOrmHealthIndicator,
  type HealthIndicatorFunction,
} from '@nestjs/terminus';
import { BroadcastHealthIndicator } from 'nestjs-kafka-broadcast/terminus';
import { DEMO_CONFIG, type DemoConfig } from '../config.js';

/**
 * Probes, each 200 when every indicator is up and 503 otherwise:
 * - `GET /health/live` (liveness): the broadcast engine runs or recovers by itself. No database
 *   and no freshness here: a restart fixes neither an outage of theirs nor a stale view.
 * - `GET /health/ready` and `GET /health` (readiness): the reader holds its group and the newest
 *   broadcast (heartbeats included) is fresh enough, and the database answers.
 */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly broadcast: BroadcastHealthIndicator,
    private readonly database: TypeOrmHealthIndicator,
    @Inject(DEMO_CONFIG) private readonly config: DemoConfig,
  ) {}

  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([() => this.broadcast.isAlive('broadcast')]);
  }

  @Get(['ready', ''])
  @HealthCheck()
  ready() {
    const checks: HealthIndicatorFunction[] = [() => this.broadcast.isReady('broadcast')];
    if (this.config.database)
      checks.push(() => this.database.pingCheck('database').withTimeout(1_500));
    return this.health.check(checks);
  }
}
