import { ConfigurableModuleBuilder, type ConfigurableModuleAsyncOptions } from '@nestjs/common';
import type { BroadcastModuleOptions } from '../interfaces/broadcast-module-options.interface.js';

/** What forRoot and forRootAsync take next to the options; not part of the injected options. */
export interface BroadcastModuleExtras {
  /**
   * Register the module globally (default `true`, as EventEmitterModule and BullModule.forRoot do):
   * its providers and BROADCAST_MODULE_OPTIONS are injectable in every module. With `false`, only
   * in the module that imports it, and in modules that import one re-exporting BroadcastModule.
   */
  isGlobal?: boolean;
}

/**
 * A class that supplies the options to `forRootAsync({ useClass })` or `({ useExisting })`.
 * Nest injects it like any provider, from the `imports` given to forRootAsync.
 */
export interface BroadcastOptionsFactory {
  /** The module options; called once, when the module is instantiated. */
  createBroadcastOptions(): BroadcastModuleOptions | Promise<BroadcastModuleOptions>;
}

/**
 * `BroadcastModule.forRootAsync(...)`: the options from `useFactory` (with `inject`), or from
 * `createBroadcastOptions()` of a BroadcastOptionsFactory that the module instantiates (`useClass`)
 * or that an imported module provides (`useExisting`); `imports` make their dependencies visible.
 */
export type BroadcastModuleAsyncOptions = ConfigurableModuleAsyncOptions<
  BroadcastModuleOptions,
  keyof BroadcastOptionsFactory
> &
  BroadcastModuleExtras;

/**
 * Options of type `T` in which every key that BroadcastModuleOptions lacks has type `never`: an
 * object literal with a misspelled key (`topicPrefx`) does not compile. Keys below the top level
 * are checked at startup (BroadcastOptionsError).
 */
export type ExactBroadcastOptions<T> = T & {
  [K in Exclude<keyof T, keyof BroadcastModuleOptions>]: never;
};

/**
 * BroadcastModuleAsyncOptions whose `useFactory` must return exactly BroadcastModuleOptions (see
 * ExactBroadcastOptions); `T` is inferred from the factory.
 */
export type ExactBroadcastModuleAsyncOptions<T extends BroadcastModuleOptions> = Omit<
  BroadcastModuleAsyncOptions,
  'useFactory'
> & {
  useFactory?: (...args: any[]) => ExactBroadcastOptions<T> | Promise<ExactBroadcastOptions<T>>;
};

const DEFAULT_EXTRAS: Required<BroadcastModuleExtras> = { isGlobal: true };

const definition = new ConfigurableModuleBuilder<BroadcastModuleOptions>({
  moduleName: 'Broadcast',
})
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createBroadcastOptions')
  .setExtras(DEFAULT_EXTRAS, (module, extras: BroadcastModuleExtras) => ({
    ...module,
    // `isGlobal: undefined` spread over the default still means the default.
    global: extras.isGlobal ?? DEFAULT_EXTRAS.isGlobal,
  }))
  .build();

export const ConfigurableBroadcastModule = definition.ConfigurableModuleClass;

/**
 * Injection token of the options given to `forRoot` or built by `forRootAsync`, as given (without
 * `isGlobal`; the engine's resolved options with defaults are `BroadcastEngine.options`).
 */
export const BROADCAST_MODULE_OPTIONS: string = definition.MODULE_OPTIONS_TOKEN as string;
