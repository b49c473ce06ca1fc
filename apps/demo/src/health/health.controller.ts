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
 * `GET /health`: 200 when every indicator is up, 503 otherwise. `broadcast` is up while the
 * reader holds its group and the newest broadcast (heartbeats included) is fresh enough.
 */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly broadcast: BroadcastHealthIndicator,
    private readonly database: TypeOrmHealthIndicator,
    @Inject(DEMO_CONFIG) private readonly config: DemoConfig,
  ) {}

  @Get()
  @HealthCheck()
  check() {
    const checks: HealthIndicatorFunction[] = [() => this.broadcast.isHealthy('broadcast')];
    if (this.config.database)
      checks.push(() => this.database.pingCheck('database').withTimeout(1_500));
    return this.health.check(checks);
  }
}
