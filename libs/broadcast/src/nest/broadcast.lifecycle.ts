import {
  Injectable,
  Optional,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { BroadcastEngine } from '../engine/broadcast.engine.js';

/**
 * Starts the engine once every module is initialised (handlers are registered by then) and
 * stops it on app.close(), in beforeApplicationShutdown: before Nest closes the HTTP server
 * (`shutdown: 'before-http'`, the default), or right after this hook closed it itself
 * (`'after-http'`). Not in onApplicationShutdown, although Nest runs it after the server closed:
 * TypeORM closes its pool in that same phase, releasing the lock's connection, and whichever
 * module was imported first goes first; the engine must leave its group before the lock goes.
 */
@Injectable()
export class BroadcastLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    private readonly engine: BroadcastEngine,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {}

  onApplicationBootstrap(): Promise<void> {
    return this.engine.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.engine.options.shutdown === 'after-http') await this.closeHttpServer();
    await this.engine.stop();
  }

  /**
   * Closes the listening HTTP server through Nest's adapter, as Nest would a moment later (its
   * own close then finds it closed). Without one (an application context, a microservice, an app
   * initialised but not listening) there is nothing to wait for.
   */
  private async closeHttpServer(): Promise<void> {
    const adapter = this.adapterHost?.httpAdapter;
    const server: unknown = adapter?.getHttpServer();
    if (!adapter || !(server as { listening?: unknown } | undefined)?.listening) return;
    await adapter.close();
  }
}
