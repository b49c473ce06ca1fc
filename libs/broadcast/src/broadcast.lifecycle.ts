import {
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { BroadcastEngine } from './engine/broadcast.engine.js';

/**
 * Starts the engine once every module is initialised (handlers are registered by then) and
 * stops it on app.close(). Nest closes the HTTP server between beforeApplicationShutdown and
 * onApplicationShutdown, so the `shutdown` option picks the hook: 'before-http' (default) stops
 * the engine while requests may still be served, 'after-http' once none can be.
 */
@Injectable()
export class BroadcastLifecycle
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  constructor(private readonly engine: BroadcastEngine) {}

  onApplicationBootstrap(): Promise<void> {
    return this.engine.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.engine.options.shutdown === 'before-http') await this.engine.stop();
  }

  /** Also stops an engine stopped already (idempotent): a no-op with 'before-http'. */
  onApplicationShutdown(): Promise<void> {
    return this.engine.stop();
  }
}
