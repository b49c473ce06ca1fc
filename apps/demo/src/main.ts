import 'reflect-metadata';
import { ConsoleLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { BroadcastStartupError } from 'nestjs-kafka-broadcast';
import { AppModule } from './app.module.js';
import { DemoConfigError, readEnvironment, type DemoConfig } from './config.js';
import { chooseDatabase, redact } from './database/database-probe.js';
import { startDemoTelemetry, tracingRequested } from './telemetry/demo-telemetry.js';

async function bootstrap(): Promise<void> {
  const env = readEnvironment();
  startDemoTelemetry({ trace: tracingRequested() }); // before the app: metrics bind at creation
  const logger = new ConsoleLogger({
    prefix: env.instanceName,
    colors: Boolean(process.stdout.isTTY),
    // Debug holds kafkajs's connection chatter, which startup errors already sum up.
    logLevels: process.env.DEMO_DEBUG ? undefined : ['log', 'warn', 'error', 'fatal'],
  });
  const database = await chooseDatabase();
  const config: DemoConfig = { ...env, database };
  if (database) {
    const where = database.source === 'local' ? 'the local PostgreSQL' : 'DATABASE_URL';
    logger.log(
      `Using ${where} (${redact(database.url)}) for products and broadcast advisory locks`,
      'Bootstrap',
    );
  } else {
    logger.warn(
      'No database: broadcast runs LOCK-FREE (lock: false) and products are kept in memory per instance',
      'Bootstrap',
    );
  }

  const app = await NestFactory.create(AppModule.forRoot(config), { logger });
  // SIGTERM / SIGINT: leave the consumer group, free the advisory lock, close the pool, exit.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  exitWithSupervisor();
  // listen() runs init: BroadcastModule resolves it once this instance reads its own group.
  if (config.host) await app.listen(config.port, config.host);
  else await app.listen(config.port);
  const url = await app.getUrl();
  logger.log(
    `Listening on ${url} (Kafka ${config.brokers.join(',')} via ${config.kafkaClient}, topic prefix '${config.topicPrefix}')`,
    'Bootstrap',
  );
}

/**
 * Started by `npm run demo` with an IPC channel: if that script dies without stopping us,
 * the channel closes and we shut down as on SIGTERM, so no instance is left behind.
 */
function exitWithSupervisor(): void {
  if (!process.channel) return;
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}

bootstrap().catch((error: unknown) => {
  if (error instanceof DemoConfigError) console.error(`Configuration error: ${error.message}`);
  // The library's startup errors name the option to check; their stack adds nothing.
  else if (error instanceof BroadcastStartupError)
    console.error(`Demo failed to start: ${error.message}`);
  else console.error('Demo failed to start:', error);
  process.exit(1);
});
