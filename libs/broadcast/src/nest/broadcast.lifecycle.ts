import {
  Injectable,
  Logger,
  Optional,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { BroadcastEngine } from '../engine/broadcast.engine.js';
import { isBroadcastStoppedError } from '../errors/broadcast-stopped.error.js';
import { watchBlockedBootstrap } from './bootstrap-wait.js';

/**
 * Starts the engine once every module is initialised (handlers are registered by then) and
 * stops it on app.close(), in beforeApplicationShutdown: before Nest closes the HTTP server
 * (`shutdown: 'before-http'`, the default), or right after this hook closed it itself
 * (`'after-http'`). Not in onApplicationShutdown, although Nest runs it after the server closed:
 * TypeORM closes its pool in that same phase, releasing the lock's connection, and whichever
 * module was imported first goes first; the engine must leave its group before the lock goes.
 *
 * With waitForReady (the default) bootstrap, and so `app.listen()`, waits for the group: a long
 * wait is logged once, since the HTTP server stays closed meanwhile (see bootstrap-wait.ts).
 * With `waitForReady: false` start() resolves at once and the reader keeps trying in the
 * background: the port opens, and readiness and the metrics say what the instance waits for.
 *
 * A shutdown signal during start-up (SIGTERM while the pool is full) stops the engine, which
 * cancels start(): that is no failure to report. Bootstrap then logs one line and never completes
 * (Nest re-raises the signal, or exits, once its shutdown hooks ran), so neither an uncaught
 * stack nor a "successfully started" line follows. app.close() without a signal still rejects
 * the pending init with BroadcastStoppedError: its caller asked for the stop and learns of it.
 */
@Injectable()
export class BroadcastLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    private readonly engine: BroadcastEngine,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {}

  /** The signal Nest is shutting down on, once beforeApplicationShutdown ran. */
  private shutdownSignal: string | undefined;

  async onApplicationBootstrap(): Promise<void> {
    const stopWatching = watchBlockedBootstrap(
      this.engine,
      this.adapterHost?.httpAdapter?.getHttpServer(),
    );
    try {
      await this.engine.start();
    } catch (error) {
      const signal = this.shutdownSignal;
      if (!isBroadcastStoppedError(error) || signal === undefined) throw error;
      new Logger('Broadcast').log(
        `Broadcast start-up cancelled by stop: the application is shutting down on ${signal}`,
      );
      // Settling either way would go on: rejecting prints an uncaught stack, resolving starts
      // the HTTP server of an application that is being shut down.
      return new Promise<void>(() => undefined);
    } finally {
      stopWatching();
    }
  }

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    this.shutdownSignal = signal;
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
