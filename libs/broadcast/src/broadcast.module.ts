import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { BroadcastExplorer } from './broadcast.explorer.js';
import { BroadcastLifecycle } from './broadcast.lifecycle.js';
import { BroadcastMetadataAccessor } from './broadcast-metadata.accessor.js';
import { ConfigurableBroadcastModule } from './broadcast.module-definition.js';
import { engineComponentProviders, engineProvider } from './broadcast.providers.js';
import { rosterProvider } from './broadcast-roster.providers.js';
import { BroadcastEngine } from './engine/broadcast.engine.js';

const exported = [BroadcastEngine, ...engineComponentProviders, rosterProvider];

/**
 * Kafka broadcast for Nest: every instance receives every message.
 * `BroadcastModule.forRoot(options)` / `forRootAsync({ imports, inject, useFactory, isGlobal })`.
 *
 * Needs only `@nestjs/common` and `@nestjs/core`. The Terminus health indicator and the
 * microservice transport and client come from `nestjs-kafka-broadcast/terminus` and
 * `nestjs-kafka-broadcast/microservices`: add them to the providers of the module that imports
 * this one.
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
  exports: exported.map((p) => ('provide' in p ? p.provide : p)),
})
export class BroadcastModule extends ConfigurableBroadcastModule {}
