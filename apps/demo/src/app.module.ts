import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BroadcastModule } from 'nestjs-kafka-broadcast';
import { BroadcastHealthIndicator } from 'nestjs-kafka-broadcast/terminus';
import { BroadcastStatusController } from './broadcast-status/broadcast-status.controller.js';
import { EvictionLog } from './cache/eviction-log.js';
import { failureWebhook } from './cache/failure-webhook.js';
import { ProductCache } from './cache/product-cache.js';
import { ProductChangedHandler } from './cache/product-changed.handler.js';
import { DEMO_CONFIG, type DemoConfig } from './config.js';
import { HealthController } from './health/health.controller.js';
import { ShutdownLogger } from './lifecycle/shutdown-logger.js';
import { DemoTelemetryModule } from './telemetry/demo-telemetry.module.js';
import { InMemoryProductsStore } from './products/in-memory-products.store.js';
import { ProductEntity } from './products/product.entity.js';
import { ProductsController } from './products/products.controller.js';
import { ProductsService } from './products/products.service.js';
import { ProductsStore } from './products/products.store.js';
import { TypeOrmProductsStore } from './products/typeorm-products.store.js';

/**
 * The demo service. With a database: products in PostgreSQL, broadcast groups guarded by
 * PostgreSQL advisory locks. Without: products in memory, broadcast lock-free.
 */
@Module({})
export class AppModule {
  static forRoot(config: DemoConfig): DynamicModule {
    const database = config.database;
    const storeProvider: Provider = {
      provide: ProductsStore,
      useClass: database ? TypeOrmProductsStore : InMemoryProductsStore,
    };
    return {
      module: AppModule,
      imports: [
        ...(database
          ? [
              TypeOrmModule.forRoot({
                type: 'postgres',
                url: database.url,
                entities: [ProductEntity],
                synchronize: false, // TypeOrmProductsStore creates the table, safely under concurrency
                retryAttempts: 3,
                retryDelay: 1_000,
              }),
              TypeOrmModule.forFeature([ProductEntity]),
            ]
          : []),
        BroadcastModule.forRoot({
          kafka: {
            brokers: config.brokers,
            clientId: `demo-${config.instanceName}`,
            client: config.kafkaClient,
            ...(config.ssl !== undefined && { ssl: config.ssl }),
            ...(config.sasl && { sasl: config.sasl }),
          },
          startupTimeoutMs: config.startupTimeoutMs,
          // false (the demo's default): the port opens at once, so probes and /metrics answer
          // while this instance waits for Kafka, a pool id or its group (DEPLOYMENT.md).
          waitForReady: config.waitForReady,
          ...(config.maxGroups !== undefined && { maxGroups: config.maxGroups }),
          ...(config.deadLetterTopic && { deadLetter: { topic: config.deadLetterTopic } }),
          ...(config.failureWebhook && {
            onHandlerError: failureWebhook(config.failureWebhook, config.instanceName),
          }),
          topicPrefix: config.topicPrefix,
          // With a DataSource the module takes PostgreSQL advisory locks from it.
          lock: database ? {} : false,
          heartbeat: { intervalMs: config.heartbeatIntervalMs },
          instanceId: config.instanceName,
        }),
        TerminusModule,
        DemoTelemetryModule,
      ],
      controllers: [ProductsController, HealthController, BroadcastStatusController],
      providers: [
        { provide: DEMO_CONFIG, useValue: config },
        storeProvider,
        ProductCache,
        EvictionLog,
        ProductsService,
        ProductChangedHandler,
        ShutdownLogger,
        BroadcastHealthIndicator,
      ],
    };
  }
}
