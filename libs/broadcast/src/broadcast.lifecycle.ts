import {
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { BroadcastEngine } from './engine/broadcast.engine.js';

/**
 * Starts the engine once every module is initialised (handlers are registered by then)
 * and stops it before the application's connections close.
 */
@Injectable()
export class BroadcastLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(private readonly engine: BroadcastEngine) {}

  onApplicationBootstrap(): Promise<void> {
    return this.engine.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.engine.stop();
  }
}
