import type { GroupConsumerPort } from '../../interfaces/kafka-port.interface.js';

/**
 * A group consumer of the protocol the adapter settles on at the first start (kafka.groupProtocol
 * 'auto' asks the broker first): the choice needs a round trip, createGroupConsumer is
 * synchronous, so the real consumer is made when start() runs.
 */
export class PlatformaticProtocolChoice implements GroupConsumerPort {
  private chosen: GroupConsumerPort | undefined;
  private starting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  private stopRequested = false;

  constructor(
    readonly groupId: string,
    private readonly choose: () => Promise<GroupConsumerPort>,
  ) {}

  start(): Promise<void> {
    this.starting ??= this.choose().then((consumer) => {
      this.chosen = consumer;
      // stop() before the choice: nothing was started, nothing to leave.
      if (!this.stopRequested) return consumer.start();
    });
    return this.starting;
  }

  seek(topic: string, partition: number, offset: string): void {
    this.chosen?.seek(topic, partition, offset);
  }

  stop(): Promise<void> {
    this.stopRequested = true;
    this.stopping ??= (async () => {
      await this.starting?.catch(() => undefined);
      await this.chosen?.stop();
    })();
    return this.stopping;
  }
}
