import type {
  GroupConsumerPort,
  GroupConsumerSpec,
  KafkaPort,
} from '../../interfaces/kafka-port.interface.js';
import {
  type ConsumerOwner,
  type GroupConsumerClient,
  GroupConsumerLifecycle,
  type LifecycleDeps,
} from './group-consumer-lifecycle.js';
import { clientClosedError, type PortClosure } from './port-closure.js';

/** Makes one client's group consumer parts for `spec`, reporting to `owner`. */
export type MakeGroupConsumerClient = (
  spec: GroupConsumerSpec,
  owner: ConsumerOwner,
) => Promise<GroupConsumerClient> | GroupConsumerClient;

/**
 * A port of an adapter (adapters/<client>/<client>.adapter.ts), as the engine's lazy port loads it:
 * besides the KafkaPort, the parts of its group consumers, so that the consumers the lazy port
 * makes before the adapter is loaded run on one lifecycle too.
 */
export interface AdapterPort extends KafkaPort {
  groupConsumerClient: MakeGroupConsumerClient;
}

/**
 * The group consumer of every adapter and of the engine's lazy port: createGroupConsumer is
 * synchronous, but the client's parts are made asynchronously (the adapter is loaded on first
 * use; @platformatic/kafka's 'auto' group protocol needs a round trip), so they are made when
 * start() runs. Start and stop are decided by its GroupConsumerLifecycle alone; a port that
 * closed refuses the start, and stops the consumer if it still runs.
 */
export class DeferredGroupConsumer implements GroupConsumerPort {
  readonly groupId: string;
  private readonly lifecycle: GroupConsumerLifecycle;
  private readonly closure: PortClosure | undefined;

  constructor(
    private readonly spec: GroupConsumerSpec,
    private readonly make: MakeGroupConsumerClient,
    deps: LifecycleDeps & { closure?: PortClosure },
  ) {
    this.groupId = spec.groupId;
    this.lifecycle = new GroupConsumerLifecycle(spec, deps);
    this.closure = deps.closure;
    this.closure?.refuse();
  }

  start(): Promise<void> {
    if (this.closure?.closed) return Promise.reject(clientClosedError());
    if (!this.lifecycle.stopRequested) this.closure?.track(this);
    return this.lifecycle.start(() => this.make(this.spec, this.lifecycle));
  }

  seek(topic: string, partition: number, offset: string): void {
    // Seeks come from the join, after start() made the client.
    this.lifecycle.client?.seek(topic, partition, offset);
  }

  stop(): Promise<void> {
    return this.lifecycle.stop().finally(() => this.closure?.untrack(this));
  }
}
