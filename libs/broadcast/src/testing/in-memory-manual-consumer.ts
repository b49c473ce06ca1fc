import type { GroupConsumerPort, GroupConsumerSpec } from '../interfaces/kafka-port.interface.js';
import type { InMemoryGroupMember } from './in-memory-member.js';
import type { InMemoryManualPort } from './in-memory-manual-control.js';

/** The real one, taken at load: a test's fake timers must not stop the in-memory broker. */
const realSetImmediate = setImmediate;

/** Lets other queued work run, as a network round trip would: a few event-loop turns. */
export async function networkTurns(turns = 3): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => realSetImmediate(resolve));
}

/** A seek the engine made, in the order it made them. */
export interface ManualSeek {
  topic: string;
  partition: number;
  offset: string;
}

/**
 * @internal A consumer of the in-memory broker that a test drives by hand (InMemoryManualPort):
 * it starts and stops as the port's contract says, but joins only when told (or at once with
 * `autoJoin`), hears of a rebalance only through its own join(), fetches nothing by itself
 * (deliver() hands records over) and records the seeks since its last join.
 */
export class InMemoryManualConsumer implements GroupConsumerPort, InMemoryGroupMember {
  readonly groupId: string;
  state: 'new' | 'starting' | 'running' | 'stopped' = 'new';
  memberId: string | undefined;
  readonly userData = undefined;
  /** Seeks since the last join, in order. */
  readonly seeks: ManualSeek[] = [];
  private starting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  private lingers = false;
  /** Set while this consumer's own join() rebalances the group: only then is it answered. */
  private answering = false;

  constructor(
    readonly spec: GroupConsumerSpec,
    private readonly port: InMemoryManualPort,
  ) {
    this.groupId = spec.groupId;
  }

  get topics(): readonly string[] {
    return this.spec.topics;
  }

  get caughtUp(): boolean {
    return true;
  }

  /** Honours the port's contract: a stop during start waits for it, and nothing joins after. */
  start(): Promise<void> {
    this.starting ??= (async () => {
      this.state = 'starting';
      for (const step of ['connect', 'subscribe', 'run']) {
        this.port.onStep?.(step);
        await networkTurns();
        if (this.stopping) return;
      }
      this.state = 'running';
      if (this.port.autoJoin) this.join();
    })();
    return this.starting;
  }

  seek(topic: string, partition: number, offset: string): void {
    this.seeks.push({ topic, partition, offset });
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await this.starting;
      await networkTurns();
      if (!this.lingers) this.port.broker.leave(this);
      this.state = 'stopped';
    })();
    return this.stopping;
  }

  get running(): boolean {
    return this.state === 'running';
  }

  /** (Re)joins: the broker rebalances the group and this member hears its assignment. */
  join(): void {
    if (!this.running) throw new Error(`${this.groupId}: join while ${this.state}`);
    this.answering = true;
    try {
      this.port.broker.join(this);
    } finally {
      this.answering = false;
    }
  }

  /**
   * A join the broker took in but never answered (KIP-848: the client made the member id and
   * told the listener first): the member is in the group, `joined` never comes.
   */
  joinUnanswered(): void {
    if (!this.running) throw new Error(`${this.groupId}: join while ${this.state}`);
    this.port.broker.join(this);
    this.spec.listener.joining?.(this.memberId!);
  }

  /**
   * The consumer stops on an error (a crash, a fence). With `memberLingers`, its member stays in
   * the group (as a crashed process's does until its session expires) until the test expires it.
   */
  crash(error = new Error('crashed'), memberLingers = false): void {
    this.state = 'stopped';
    this.lingers = memberLingers;
    if (!memberLingers) this.port.broker.leave(this);
    this.spec.listener.crashed(error);
  }

  /**
   * Hands the records at these offsets to the sink as a fetch would, awaiting each call (records
   * past the log's end are appended first, with the value `{"n":<offset>}`).
   */
  async deliver(topic: string, partition: number, offsets: number[]): Promise<void> {
    for (const offset of offsets) {
      if (!this.running) return;
      await this.spec.sink(topic, partition, this.port.recordAt(topic, partition, offset));
    }
  }

  /** @internal The broker rebalanced the group: reported only when this member's join asked. */
  assigned(memberId: string, assignment: Map<string, number[]>, leader: boolean): void {
    if (!this.answering || !this.running) return;
    this.seeks.length = 0;
    this.spec.listener.joined(memberId, assignment, leader);
  }

  /** @internal Nothing to wake: this consumer fetches only when told. */
  notify(): void {}
}
