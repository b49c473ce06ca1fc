import { Logger, type Provider } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { BROADCAST_MODULE_OPTIONS } from './broadcast.module-definition.js';
import { BroadcastGroupAllocator } from './core/broadcast-group.allocator.js';
import { BroadcastEngine } from './engine/broadcast.engine.js';
import { BroadcastHeartbeat } from './core/broadcast.heartbeat.js';
import { BroadcastPublisher } from './core/broadcast.publisher.js';
import { BroadcastReader } from './core/broadcast.reader.js';
import { BroadcastMessages } from './errors/broadcast.messages.js';
import { BroadcastOptionsError } from './errors/broadcast-options.error.js';
import type { BroadcastModuleOptions } from './interfaces/broadcast-module-options.interface.js';

/** The engine, built from the options; its DataSource is looked up when it starts. */
export const engineProvider: Provider = {
  provide: BroadcastEngine,
  inject: [BROADCAST_MODULE_OPTIONS, ModuleRef],
  useFactory: (options: BroadcastModuleOptions, moduleRef: ModuleRef) =>
    new BroadcastEngine(options, {
      logger: new Logger('Broadcast'),
      dataSource: () => findDataSource(moduleRef, options),
    }),
};

/** The engine's parts, injectable on their own. */
export const engineComponentProviders: Provider[] = [
  {
    provide: BroadcastReader,
    inject: [BroadcastEngine],
    useFactory: (e: BroadcastEngine) => e.reader,
  },
  {
    provide: BroadcastPublisher,
    inject: [BroadcastEngine],
    useFactory: (e: BroadcastEngine) => e.publisher,
  },
  {
    provide: BroadcastGroupAllocator,
    inject: [BroadcastEngine],
    useFactory: (e: BroadcastEngine) => e.allocator,
  },
  {
    provide: BroadcastHeartbeat,
    inject: [BroadcastEngine],
    useFactory: (e: BroadcastEngine) => e.heartbeat,
  },
];

/**
 * A named DataSource that does not exist is a configuration error; a missing default one
 * means the app has no database, and the engine runs lock-free with a warning.
 */
function findDataSource(
  moduleRef: ModuleRef,
  options: BroadcastModuleOptions,
): DataSource | undefined {
  if (options.lock === false) return undefined;
  const name = options.lock?.dataSource;
  try {
    return moduleRef.get<DataSource>(getDataSourceToken(name) as string, {
      strict: false,
    });
  } catch {
    if (name !== undefined) {
      throw new BroadcastOptionsError(
        'lock.dataSource',
        BroadcastMessages.unknownDataSourceAccepted(),
        name,
      );
    }
    return undefined;
  }
}
