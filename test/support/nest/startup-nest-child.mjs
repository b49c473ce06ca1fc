// A Nest app as `nest new` makes one (NestFactory.create, enableShutdownHooks, listen, and
// `void bootstrap()`), with BroadcastModule.forRoot, or forRootAsync when STARTUP_ASYNC is set.
// Plain JavaScript: the decorators are applied by hand. Used by test/module/startup-process.spec.ts.
//
//   BROADCAST_LIB=<file URL of dist/index.js> STARTUP_OPTIONS='<json>' node test/support/nest/startup-nest-child.mjs
//
// stdout: Nest's log lines (the engine's through Nest's Logger), then 'listening' once listen()
// resolved.
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { startupOptions } from './startup-child-options.mjs';

const { BroadcastModule } = await import(process.env.BROADCAST_LIB);
const options = await startupOptions(new URL('locks.js', process.env.BROADCAST_LIB).href);

class AppModule {}
Module({
  imports: [
    process.env.STARTUP_ASYNC
      ? BroadcastModule.forRootAsync({ useFactory: () => options })
      : BroadcastModule.forRoot(options),
  ],
})(AppModule);

async function bootstrap() {
  const app = await NestFactory.create(AppModule);
  app.enableShutdownHooks();
  await app.listen(0, '127.0.0.1');
  console.log('listening');
}
void bootstrap();
