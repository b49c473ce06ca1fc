import { Inject, Injectable } from '@nestjs/common';
import { type CustomTransportStrategy, type MessageHandler, Server } from '@nestjs/microservices';
import { isObservable, lastValueFrom } from 'rxjs';
import { BROADCAST_TRANSPORT } from '../broadcast.constants.js';
import { BroadcastContext } from './broadcast.context.js';
import { BroadcastEngine } from '../../views/broadcast-engine.view.js';
import type { BroadcastMessage } from '../../interfaces/broadcast-message.interface.js';

/**
 * A microservice transport over the module's engine: `@EventPattern(topic, BROADCAST_TRANSPORT)`
 * handlers read through the same consumer group as @OnBroadcast ones (one group per app).
 * Connect it before `app.init()`/`listen()`:
 * `app.connectMicroservice({ strategy: app.get(BroadcastTransport) })`.
 */
@Injectable()
export class BroadcastTransport extends Server implements CustomTransportStrategy {
  override readonly transportId = BROADCAST_TRANSPORT;
  override readonly propagatesEventHandlerErrors = true;

  constructor(@Inject(BroadcastEngine) private readonly engine: BroadcastEngine) {
    super();
  }

  /** Nest calls this while connecting the microservice, before the engine starts reading. */
  override addHandler(
    pattern: unknown,
    callback: MessageHandler,
    isEventHandler = false,
    extras = {},
  ): void {
    super.addHandler(pattern, callback, isEventHandler, extras);
    const topic = this.normalizePattern(pattern as string);
    this.engine.on(
      topic,
      (_payload, message) => this.deliver(topic, message),
      `@EventPattern(${topic})`,
    );
  }

  listen(callback: (...optionalParams: unknown[]) => unknown): void {
    // The engine's lifecycle (BroadcastModule) does the reading; nothing else to open.
    callback();
  }

  close(): void {}

  on(): never {
    throw new Error('BroadcastTransport has no events; use BroadcastReader.status().');
  }

  unwrap<T>(): T {
    return this.engine as T;
  }

  /** Awaits the handler and its stream so failures and timeouts are counted by the engine. */
  private async deliver(topic: string, message: BroadcastMessage): Promise<void> {
    const handler = this.getHandlerByPattern(topic);
    if (!handler) return;
    const result = await handler(message.payload, new BroadcastContext([message]));
    if (isObservable(result)) await lastValueFrom(result, { defaultValue: undefined });
  }
}
