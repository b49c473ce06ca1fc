import { Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { BROADCAST_HANDLER_METADATA } from './broadcast.constants.js';
import type { OnBroadcastMetadata } from './on-broadcast.decorator.js';

/** Reads what @OnBroadcast stored on a method. */
@Injectable()
export class BroadcastMetadataAccessor {
  constructor(private readonly reflector: Reflector) {}

  getHandlerMetadata(method: Function): OnBroadcastMetadata[] | undefined {
    // Guard against functions without metadata storage (e.g. bound or native ones).
    if (!method || typeof method !== 'function') return undefined;
    return this.reflector.get<OnBroadcastMetadata[] | undefined>(
      BROADCAST_HANDLER_METADATA,
      method,
    );
  }
}
