import { BaseRpcContext } from '@nestjs/microservices';
import type { BroadcastMessage } from '../../interfaces/broadcast-message.interface.js';

/** The @Ctx() of a broadcast received through BroadcastTransport. */
export class BroadcastContext extends BaseRpcContext<[BroadcastMessage]> {
  getMessage(): BroadcastMessage {
    return this.args[0];
  }

  getTopic(): string {
    return this.args[0].topic;
  }
}
