import { Logger, Module, type DynamicModule, type Provider } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { BroadcastExplorer } from '../broadcast.explorer.js';
import { BroadcastLifecycle } from '../broadcast.lifecycle.js';
import { BroadcastMetadataAccessor } from '../broadcast-metadata.accessor.js';
import { BROADCAST_MODULE_OPTIONS } from '../broadcast.module-definition.js';
import { engineComponentProviders } from '../broadcast.providers.js';
import { rosterProvider } from '../broadcast-roster.providers.js';
import { BroadcastTestingHelper, HandlerFailureLog } from './broadcast-testing.helper.js';
import { BroadcastEngine } from '../../engine/broadcast.engine.js';
import type { BroadcastModuleOptions } from '../../interfaces/broadcast-module-options.interface.js';
import { InMemoryKafka } from '../../testing/in-memory-kafka.js';

/** Options of BroadcastTestingModule.forRoot(): forRoot's, without Kafka and locks. */
export interface BroadcastTestingOptions extends Omit<BroadcastModuleOptions, 'kafka' | 'lock'> {
  /**
   * The in-memory broker (default: a new one for this module). Give two modules the same broker
   * to run two instances in one test: each gets every message.
   */
  broker?: InMemoryKafka;
  /** Register the module globally (default `true`, as BroadcastModule.forRoot). */
  isGlobal?: boolean;
}

/** What the engine runs with in tests unless the options say otherwise. */
const TESTING_DEFAULTS: Partial<BroadcastModuleOptions> = {
  // Nothing to export to and no SDK to load in a unit test.
  telemetry: false,
  // No background traffic: the records on the broker are the test's own, and nothing is left
  // to wait for. Without heartbeats the health indicator reports up as soon as it is ready.
  heartbeat: false,
};

/**
 * BroadcastModule for an application's own tests (`nestjs-kafka-broadcast/testing`): the same
 * providers (BroadcastEngine, BroadcastPublisher, BroadcastReader, BroadcastGroupAllocator,
 * BroadcastHeartbeat, BroadcastRoster, BROADCAST_MODULE_OPTIONS) and the same @OnBroadcast
 * discovery, on an in-memory broker: no Kafka, no database (lock-free), ready within the
 * application's init. Adds BroadcastTestingHelper to publish and await the handlers.
 *
 * Import it where the application imports `BroadcastModule.forRoot(...)`, or swap it in with
 * `overrideModule(theSameDynamicModule).useModule(BroadcastTestingModule.forRoot())`.
 */
@Module({})
export class BroadcastTestingModule {
  /** The module on a new in-memory broker (or `options.broker`); global unless `isGlobal: false`. */
  static forRoot(options: BroadcastTestingOptions = {}): DynamicModule {
    const { broker = new InMemoryKafka(), isGlobal = true, ...rest } = options;
    const moduleOptions: BroadcastModuleOptions = {
      ...TESTING_DEFAULTS,
      ...rest,
      kafka: { brokers: ['in-memory'] },
      lock: false,
    };
    const engineProvider: Provider = {
      provide: BroadcastEngine,
      inject: [HandlerFailureLog],
      useFactory: (failures: HandlerFailureLog) => {
        const engine = new BroadcastEngine(moduleOptions, {
          kafka: broker.port(),
          logger: new Logger('Broadcast'),
        });
        failures.watch(engine.handlerCalls);
        broker.addBackground(engine.handlerCalls.background);
        return engine;
      },
    };
    const exported = [
      BroadcastEngine,
      ...engineComponentProviders.map((p) => ('provide' in p ? p.provide : p)),
      (rosterProvider as { provide: unknown }).provide,
      BroadcastTestingHelper,
      InMemoryKafka,
      BROADCAST_MODULE_OPTIONS,
    ];
    return {
      module: BroadcastTestingModule,
      global: isGlobal,
      imports: [DiscoveryModule],
      providers: [
        { provide: BROADCAST_MODULE_OPTIONS, useValue: moduleOptions },
        { provide: InMemoryKafka, useValue: broker },
        HandlerFailureLog,
        engineProvider,
        ...engineComponentProviders,
        rosterProvider,
        BroadcastMetadataAccessor,
        BroadcastExplorer,
        BroadcastLifecycle,
        BroadcastTestingHelper,
      ],
      exports: exported as DynamicModule['exports'],
    };
  }
}
