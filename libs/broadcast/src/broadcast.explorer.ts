import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { BroadcastMetadataAccessor } from './broadcast-metadata.accessor.js';
import { BroadcastEngine } from './engine/broadcast.engine.js';

/**
 * Finds @OnBroadcast methods on every provider and controller at module init and registers
 * them, bound to their instance, before the reader starts, so one subscription covers all.
 */
@Injectable()
export class BroadcastExplorer implements OnModuleInit {
  private readonly logger = new Logger('BroadcastExplorer');

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly metadata: BroadcastMetadataAccessor,
    private readonly engine: BroadcastEngine,
  ) {}

  onModuleInit(): void {
    const wrappers = [...this.discovery.getProviders(), ...this.discovery.getControllers()];
    for (const wrapper of wrappers) this.explore(wrapper);
  }

  private explore(wrapper: InstanceWrapper): void {
    if (wrapper.isAlias) return;
    const requestScoped = !wrapper.isDependencyTreeStatic();
    const instance = wrapper.instance as Record<string, unknown> | undefined;
    const prototype = requestScoped
      ? (wrapper.metatype as Function | undefined)?.prototype
      : instance && Object.getPrototypeOf(instance);
    if (!prototype || (!requestScoped && !instance)) return;
    for (const methodName of this.scanner.getAllMethodNames(prototype)) {
      const entries = this.metadata.getHandlerMetadata(prototype[methodName]);
      if (!entries) continue;
      const name = `${prototype.constructor?.name ?? wrapper.name}.${methodName}`;
      if (requestScoped) {
        this.logger.warn(
          `${name} is @OnBroadcast but its provider is request-scoped; it is not registered.`,
          { handler: name, reason: 'request-scoped provider' },
        );
        continue;
      }
      const handle = (instance![methodName] as Function).bind(instance);
      for (const { topics, options } of entries) {
        for (const topic of topics) this.engine.on(topic, handle, options.name ?? name);
      }
    }
  }
}
