import { Inject, Injectable } from '@nestjs/common';
import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import { BroadcastRecord } from './broadcast-record.js';
import { BroadcastEngine } from '../../views/broadcast-engine.view.js';

/**
 * A ClientProxy whose `emit(topic, data)` publishes a broadcast. Broadcasts have no
 * replies, so `send()` is refused.
 */
@Injectable()
export class BroadcastClient extends ClientProxy {
  constructor(@Inject(BroadcastEngine) private readonly engine: BroadcastEngine) {
    super();
  }

  async connect(): Promise<void> {}

  close(): void {}

  unwrap<T>(): T {
    return this.engine as T;
  }

  protected publish(_packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    callback({
      err: new Error('Broadcasts are fire-and-forget: use emit(), not send().'),
      isDisposed: true,
    });
    return () => {};
  }

  protected async dispatchEvent<T = unknown>(packet: ReadPacket): Promise<T> {
    const topic =
      typeof packet.pattern === 'string' ? packet.pattern : JSON.stringify(packet.pattern);
    const { data } = packet;
    if (data instanceof BroadcastRecord)
      await this.engine.publisher.publish(topic, data.payload, {
        ...data.options,
        receipts: undefined,
      });
    else await this.engine.publisher.publish(topic, data);
    return undefined as T;
  }
}
