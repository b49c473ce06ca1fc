import { Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller.js';

/** `GET /metrics`; the SDK itself is registered by main.ts before the app is created. */
@Module({ controllers: [MetricsController] })
export class DemoTelemetryModule {}
