import { Injectable, Scope, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { BroadcastMetadataAccessor } from './broadcast-metadata.accessor.js';
import { BroadcastEngine } from '../engine/broadcast.engine.js';
import { BroadcastMessages } from '../errors/broadcast.messages.js';

/**
 * Finds @OnBroadcast methods on every provider and controller at module init and registers
 * them, bound to their instance, before the reader starts, so one subscription covers all.
 *
 * Only singletons can handle broadcasts: a request-scoped provider has no instance outside a
 * request, and a transient one has one per consumer (the one Nest shows here was never
 * constructed). Such handlers fail the startup, all named at once, before anything connects.
 */
@Injectable()
export class BroadcastExplorer implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly metadata: BroadcastMetadataAccessor,
    private readonly engine: BroadcastEngine,
  ) {}

  onModuleInit(): void {
    const wrappers = [...this.discovery.getProviders(), ...this.discovery.getControllers()];
    const scoped = wrappers.flatMap((wrapper) => this.explore(wrapper));
    if (scoped.length > 0) throw new Error(BroadcastMessages.scopedHandlers(scoped));
  }

  /** Registers the wrapper's handlers; returns those it cannot register, described. */
  private explore(wrapper: InstanceWrapper): string[] {
    if (wrapper.isAlias) return [];
    const scope = scopeOf(wrapper);
    const instance = wrapper.instance as Record<string, unknown> | undefined;
    // A scoped provider's instance here is absent or unconstructed: read its class instead.
    const prototype = scope
      ? (wrapper.metatype as Function | undefined)?.prototype
      : instance && Object.getPrototypeOf(instance);
    if (!prototype) return [];
    const scoped: string[] = [];
    for (const methodName of this.scanner.getAllMethodNames(prototype)) {
      const entries = this.metadata.getHandlerMetadata(prototype[methodName]);
      if (!entries) continue;
      const className = prototype.constructor?.name ?? String(wrapper.name);
      const name = `${className}.${methodName}`;
      if (scope) {
        scoped.push(`${name} (${className} is ${scope})`);
        continue;
      }
      const handle = (instance![methodName] as Function).bind(instance);
      for (const { topics, options } of entries) {
        // Checks the handler's options: an invalid retry or timeout fails the startup here.
        for (const topic of topics)
          this.engine.on(topic, handle, { ...options, name: options.name ?? name });
      }
    }
    return scoped;
  }
}

/** How the wrapper is scoped, for the error; undefined for a singleton. */
function scopeOf(wrapper: InstanceWrapper): string | undefined {
  if (!wrapper.isDependencyTreeStatic()) {
    return wrapper.scope === Scope.REQUEST
      ? 'request-scoped'
      : 'request-scoped through a request-scoped dependency';
  }
  return wrapper.isTransient ? 'transient' : undefined;
}
