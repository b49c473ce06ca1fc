import { Logger, type Provider } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { BROADCAST_MODULE_OPTIONS } from './broadcast.module-definition.js';
import { BroadcastEngine } from '../engine/broadcast.engine.js';
import { BroadcastPublisher } from '../core/publishing/broadcast.publisher.js';
import { allocatorView, BroadcastGroupAllocator } from '../views/broadcast-group-allocator.view.js';
import { BroadcastHeartbeat, heartbeatView } from '../views/broadcast-heartbeat.view.js';
import { BroadcastReader, readerView } from '../views/broadcast-reader.view.js';
import { BroadcastMessages } from '../errors/broadcast.messages.js';
import { BroadcastOptionsError } from '../errors/broadcast-options.error.js';
import type { BroadcastModuleOptions } from '../interfaces/broadcast-module-options.interface.js';
import type { LockSessionSource } from '../locks/lock-session.js';

type GetDataSourceToken = (name?: string) => unknown;

/**
 * The engine, built from the options. Its TypeORM DataSource is looked up when it starts, and only
 * when the locks come from one: `@nestjs/typeorm` is loaded then, never for `lock: false` or
 * `lock.provider`, so apps without TypeORM need not install it.
 */
export const engineProvider: Provider = {
  provide: BroadcastEngine,
  inject: [BROADCAST_MODULE_OPTIONS, ModuleRef],
  useFactory: async (options: BroadcastModuleOptions, moduleRef: ModuleRef) => {
    const logger = new Logger('Broadcast');
    const usesDataSource = options?.lock !== false && options?.lock?.provider === undefined;
    const tokenOf = usesDataSource ? await loadGetDataSourceToken(options) : undefined;
    return new BroadcastEngine(options, {
      logger,
      dataSource: () => (tokenOf ? findDataSource(moduleRef, options, tokenOf) : undefined),
    });
  },
};

/** `getDataSourceToken` of `@nestjs/typeorm`, or undefined when the app does not have it. */
async function loadGetDataSourceToken(
  options: BroadcastModuleOptions,
): Promise<GetDataSourceToken | undefined> {
  try {
    const typeorm = (await import('@nestjs/typeorm')) as { getDataSourceToken: GetDataSourceToken };
    return typeorm.getDataSourceToken;
  } catch {
    // A named DataSource cannot exist without @nestjs/typeorm: the same error as a wrong name.
    const name = options?.lock ? options.lock.dataSource : undefined;
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

/**
 * The engine's parts, injectable on their own: the publisher, and read-only views of the reader,
 * the allocator and the heartbeat. No view can start or stop anything: the module starts and
 * stops the engine (BroadcastLifecycle), and the engine its parts.
 */
export const engineComponentProviders: Provider[] = [
  {
    provide: BroadcastReader,
    inject: [BroadcastEngine],
    useFactory: (e: BroadcastEngine) => readerView(e.reader),
  },
  {
    provide: BroadcastPublisher,
    inject: [BroadcastEngine],
    useFactory: (e: BroadcastEngine) => e.publisher,
  },
  {
    provide: BroadcastGroupAllocator,
    inject: [BroadcastEngine],
    useFactory: (e: BroadcastEngine) => allocatorView(e.allocator),
  },
  {
    provide: BroadcastHeartbeat,
    inject: [BroadcastEngine],
    useFactory: (e: BroadcastEngine) =>
      heartbeatView(e.heartbeat, {
        enabled: e.options.heartbeat !== false,
        maxStalenessMs: e.options.maxStalenessMs,
        lastLatencyMs: () => e.reader.status().lastLatencyMs,
      }),
  },
];

/**
 * A named DataSource that does not exist is a configuration error; a missing default one
 * means the app has no database, and the engine runs lock-free with a warning.
 */
function findDataSource(
  moduleRef: ModuleRef,
  options: BroadcastModuleOptions,
  getDataSourceToken: GetDataSourceToken,
): LockSessionSource | undefined {
  if (options.lock === false) return undefined;
  const name = options.lock?.dataSource;
  try {
    return moduleRef.get<LockSessionSource>(getDataSourceToken(name) as string, {
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
