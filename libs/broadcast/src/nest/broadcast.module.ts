import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { BroadcastExplorer } from './broadcast.explorer.js';
import { BroadcastLifecycle } from './broadcast.lifecycle.js';
import { BroadcastMetadataAccessor } from './broadcast-metadata.accessor.js';
import {
  BROADCAST_MODULE_OPTIONS,
  ConfigurableBroadcastModule,
  type BroadcastModuleAsyncOptions,
  type BroadcastModuleExtras,
  type ExactBroadcastModuleAsyncOptions,
} from './broadcast.module-definition.js';
import { engineComponentProviders, engineProvider } from './broadcast.providers.js';
import { rosterProvider } from './broadcast-roster.providers.js';
import { BroadcastEngine } from '../engine/broadcast.engine.js';
import type { BroadcastModuleOptions } from '../interfaces/broadcast-module-options.interface.js';

const exported = [BroadcastEngine, ...engineComponentProviders, rosterProvider];

/**
 * Kafka broadcast for Nest: every instance receives every message.
 * `BroadcastModule.forRoot(options)` / `forRootAsync({ imports, useFactory, inject })` (or
 * `useClass` / `useExisting`). Global unless `isGlobal: false`: import it once, in the root module.
 *
 * Needs only `@nestjs/common` and `@nestjs/core`. The Terminus health indicator and the
 * microservice transport and client come from `nestjs-kafka-broadcast/terminus` and
 * `nestjs-kafka-broadcast/microservices`: add them to the providers of any module (with
 * `isGlobal: false`, of a module that imports this one or one re-exporting it).
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    engineProvider,
    ...engineComponentProviders,
    rosterProvider,
    BroadcastMetadataAccessor,
    BroadcastExplorer,
    BroadcastLifecycle,
  ],
  exports: [BROADCAST_MODULE_OPTIONS, ...exported.map((p) => ('provide' in p ? p.provide : p))],
})
export class BroadcastModule extends ConfigurableBroadcastModule {
  /** The module with these options; global unless `isGlobal: false`. */
  static override forRoot(options: BroadcastModuleOptions & BroadcastModuleExtras): DynamicModule {
    return super.forRoot(options);
  }

  /**
   * The module with options built at startup; global unless `isGlobal: false`. A `useFactory`
   * returning an object literal with a key the options do not have does not compile.
   */
  static override forRootAsync<T extends BroadcastModuleOptions = BroadcastModuleOptions>(
    options: ExactBroadcastModuleAsyncOptions<T>,
  ): DynamicModule {
    return super.forRootAsync(options as BroadcastModuleAsyncOptions);
  }
}
