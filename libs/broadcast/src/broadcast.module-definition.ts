import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { BroadcastModuleOptions } from './interfaces/broadcast-module-options.interface.js';

export const {
  ConfigurableModuleClass: ConfigurableBroadcastModule,
  MODULE_OPTIONS_TOKEN: BROADCAST_MODULE_OPTIONS,
  OPTIONS_TYPE: BROADCAST_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: BROADCAST_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<BroadcastModuleOptions>({
  moduleName: 'Broadcast',
})
  .setClassMethodName('forRoot')
  .setExtras({ isGlobal: false }, (definition, extras) => ({
    ...definition,
    global: extras.isGlobal,
  }))
  .build();
