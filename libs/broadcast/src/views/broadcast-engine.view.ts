import { BroadcastEngine as EngineCore } from '../engine/broadcast.engine.js';
import type { BroadcastEngineDeps } from '../engine/broadcast-engine.deps.js';
import type { BroadcastTopic } from '../core/broadcast-definition.js';
import type { ResolvedBroadcastOptions } from '../core/options/broadcast-options.resolver.js';
import type { BroadcastPublisher } from '../core/publishing/broadcast.publisher.js';
import type { BroadcastHandlerOptions } from '../interfaces/broadcast-failure-policy.interface.js';
import type { BroadcastHandler } from '../interfaces/broadcast-message.interface.js';
import type { BroadcastModuleOptions } from '../interfaces/broadcast-module-options.interface.js';
import type { BroadcastGroupAllocator } from './broadcast-group-allocator.view.js';
import type { BroadcastReader } from './broadcast-reader.view.js';
import type { BroadcastRoster } from './broadcast-roster.view.js';

/**
 * The whole broadcast engine without Nest (`nestjs-kafka-broadcast/engine`): the publisher, and
 * read-only views of the roster, the reader and the allocator. Its lifecycle is its own: `on()`,
 * then `start()`, then `stop()`. BroadcastModule is a thin layer over it and starts and stops it
 * with the application.
 */
export interface BroadcastEngine {
  /** The checked options with every default filled in. */
  readonly options: ResolvedBroadcastOptions;
  /** Publishes broadcasts. */
  readonly publisher: BroadcastPublisher;
  /** The instances live now (see BroadcastRoster). */
  readonly roster: BroadcastRoster;
  /** The reader's state, group and readiness (see BroadcastReader). */
  readonly reader: BroadcastReader;
  /** The pool this instance's group is claimed from (see BroadcastGroupAllocator). */
  readonly allocator: BroadcastGroupAllocator;

  /**
   * Registers a handler; call before start(). With a definition that has a schema, payloads
   * that fail it are logged, counted `invalid` and not handed to any handler of the topic.
   * The third argument is the handler's name, or its options: `name`, `retry: { attempts,
   * backoffMs, maxBackoffMs }` and `timeoutMs` (see BroadcastHandlerOptions); invalid options
   * throw a BroadcastOptionsError naming the option and the handler.
   */
  on<T = unknown>(
    topic: BroadcastTopic<T>,
    handler: BroadcastHandler<T>,
    nameOrOptions?: string | BroadcastHandlerOptions,
  ): this;

  /**
   * Starts reading and heartbeating. With waitForReady (the default) it resolves once the
   * group is ready and rejects if the startup deadline passes; otherwise it resolves at once
   * and the reader keeps trying in the background. Once stop() was called, it starts nothing
   * and rejects as stopped.
   */
  start(): Promise<void>;

  /** Stops the heartbeat, leaves the group, frees the lock, disconnects. Idempotent. */
  stop(): Promise<void>;
}

/**
 * The engine class itself, typed as what an application uses of it: the reader and the
 * allocator are seen through their views (the engine's own parts are a structural superset of
 * them, which the assignment checks), and nothing else of the engine's insides is public.
 */
export const BroadcastEngine: new (
  options: BroadcastModuleOptions,
  deps?: BroadcastEngineDeps,
) => BroadcastEngine = EngineCore;
