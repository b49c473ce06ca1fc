import { Controller, Get, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { demoTelemetry } from './demo-telemetry.js';

/** `GET /metrics`: the broadcast metrics (and any other OpenTelemetry metric) for Prometheus. */
@Controller()
export class MetricsController {
  @Get('metrics')
  metrics(@Req() request: Request, @Res() response: Response): void {
    demoTelemetry().prometheus.getMetricsRequestHandler(request, response);
  }
}
