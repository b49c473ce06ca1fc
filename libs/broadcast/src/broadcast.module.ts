import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { BroadcastClient } from './broadcast.client.js';
import { BroadcastExplorer } from './broadcast.explorer.js';
import { BroadcastHealthIndicator } from './broadcast.health.js';
import { BroadcastLifecycle } from './broadcast.lifecycle.js';
import { BroadcastMetadataAccessor } from './broadcast-metadata.accessor.js';
import { ConfigurableBroadcastModule } from './broadcast.module-definition.js';
import { engineComponentProviders, engineProvider } from './broadcast.providers.js';
import { BroadcastTransport } from './broadcast.transport.js';
import { rosterProvider } from './broadcast-roster.providers.js';
import { BroadcastEngine } from './engine/broadcast.engine.js';

const exported = [
  BroadcastEngine,
  ...engineComponentProviders,
  rosterProvider,
  BroadcastHealthIndicator,
  BroadcastTransport,
  BroadcastClient,
];

/**
 * Kafka broadcast for Nest: every instance receives every message.
 * `BroadcastModule.forRoot(options)` / `forRootAsync({ imports, inject, useFactory, isGlobal })`.
 */
@Module({
  imports: [DiscoveryModule, TerminusModule],
  providers: [
    engineProvider,
    ...engineComponentProviders,
    rosterProvider,
    BroadcastMetadataAccessor,
    BroadcastExplorer,
    BroadcastLifecycle,
    BroadcastHealthIndicator,
    BroadcastTransport,
    BroadcastClient,
  ],
  exports: exported.map((p) => ('provide' in p ? p.provide : p)),
})
export class BroadcastModule extends ConfigurableBroadcastModule {}
