import { BroadcastMessages } from '../../errors/broadcast.messages.js';
import type { BroadcastHandler } from '../../interfaces/broadcast-message.interface.js';
import type { HandlerPolicy } from './handler-policy.js';

/** A handler, the name used for it in logs and its failure policy. */
export interface RegisteredHandler {
  readonly topic: string;
  readonly name: string;
  readonly handle: BroadcastHandler<any>;
  /** Attempts, backoff and timeout; absent: one attempt within the module's handlerTimeoutMs. */
  readonly policy?: HandlerPolicy;
}

/** Handlers by logical topic. Topics are fixed once the reader starts, so one subscription covers them. */
export class BroadcastHandlerRegistry {
  private readonly byTopic = new Map<string, RegisteredHandler[]>();
  private frozen = false;

  add(
    topic: string,
    handle: BroadcastHandler<any>,
    name = handle.name || 'anonymous handler',
    policy?: HandlerPolicy,
  ): void {
    const list = this.byTopic.get(topic);
    if (!list && this.frozen) throw new Error(BroadcastMessages.handlersFrozen(topic));
    const entry = { topic, name, handle, policy };
    if (list) list.push(entry);
    else this.byTopic.set(topic, [entry]);
  }

  handlersFor(topic: string): readonly RegisteredHandler[] | undefined {
    return this.byTopic.get(topic);
  }

  topics(): string[] {
    return [...this.byTopic.keys()];
  }

  freeze(): void {
    this.frozen = true;
  }
}
