import type { GroupConsumerPort, GroupConsumerSpec } from '../interfaces/kafka-port.interface.js';
import { asError } from '../shared/async.utils.js';
import type { InMemoryKafka } from './in-memory-kafka.js';

/** The real one, taken at load: a test's fake timers must not stop the in-memory broker. */
const realSetImmediate = setImmediate;

/** One turn of the event loop: joining and fetching continue in the background, as a client's do. */
const turn = () => new Promise<void>((resolve) => realSetImmediate(resolve));

/**
 * A member of an in-memory consumer group. Once started it joins (the broker assigns the
 * partitions and calls the listener), then hands every record at or after its position to the
 * sink, one at a time and in order per partition, awaiting each call. Positions come from seek(),
 * else from the log's start or end (`fromBeginning`); nothing is ever committed.
 */
export class InMemoryGroupConsumer implements GroupConsumerPort {
  readonly groupId: string;
  /** The broker's member id, from the first join on. */
  memberId: string | undefined;
  /** The user data given at join (the engine's member info). */
  userData: string | undefined;
  private state: 'new' | 'running' | 'stopped' = 'new';
  private assignment = new Map<string, readonly number[]>();
  /** `topic:partition` → the next offset to hand over. */
  private readonly positions = new Map<string, number>();
  /** Bumped by every seek and join: a delivery started before one must not move the position. */
  private version = 0;
  private wake: (() => void) | undefined;
  private starting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  private pumping: Promise<void> | undefined;
  private busy = false;
  private positionedPending = false;
  /** Ends following the spec's pauses (stop). */
  private unwatchPauses: (() => void) | undefined;

  constructor(
    readonly spec: GroupConsumerSpec,
    private readonly broker: InMemoryKafka,
    /** Throws when its port was disconnected: a start is refused then. */
    private readonly refuse: () => void = () => undefined,
  ) {
    this.groupId = spec.groupId;
  }

  get topics(): readonly string[] {
    return this.spec.topics;
  }

  start(): Promise<void> {
    try {
      this.refuse();
    } catch (error) {
      return Promise.reject(error as Error);
    }
    this.starting ??= (async () => {
      await turn();
      if (this.stopping) return;
      this.state = 'running';
      this.broker.started(this);
      this.userData = this.spec.userData || undefined;
      // A resumed topic is read on from its position (GroupConsumerSpec.pauses).
      this.unwatchPauses = this.spec.pauses?.watch(() => this.notify());
      this.pumping = this.pump();
      // Joining continues in the background, as with a real client.
      void turn().then(() => {
        if (this.state === 'running') this.broker.join(this);
      });
    })();
    return this.starting;
  }

  seek(topic: string, partition: number, offset: string): void {
    this.positions.set(key(topic, partition), Number(offset));
    this.version++;
    this.notify();
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await this.starting;
      if (this.state !== 'running') return;
      this.state = 'stopped';
      this.unwatchPauses?.();
      this.broker.leave(this);
      this.notify();
      await this.pumping;
    })();
    return this.stopping;
  }

  get running(): boolean {
    return this.state === 'running';
  }

  /** Whether every assigned partition was handed over up to its high watermark, nothing in flight. */
  get caughtUp(): boolean {
    if (this.state !== 'running') return true;
    if (this.busy || this.memberId === undefined) return false;
    return !this.nextWork();
  }

  /** @internal Called by the broker at each rebalance of the group. */
  assigned(memberId: string, assignment: Map<string, number[]>, leader: boolean): void {
    if (this.state !== 'running') return;
    this.memberId = memberId;
    this.assignment = assignment;
    this.positions.clear();
    this.version++;
    this.positionedPending = true;
    this.spec.listener.joined(memberId, assignment, leader);
    // A partition nobody sought starts where `fromBeginning` says (the engine seeks them all).
    for (const [topic, partitions] of assignment) {
      for (const partition of partitions) {
        const log = this.broker.log(topic, partition);
        if (!log || this.positions.has(key(topic, partition))) continue;
        this.positions.set(key(topic, partition), this.spec.fromBeginning ? log.low : log.high);
      }
    }
    this.notify();
  }

  /** @internal New records were appended or the log changed. */
  notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private async pump(): Promise<void> {
    while (this.state === 'running') {
      const work = this.nextWork();
      if (!work) {
        if (this.positionedPending && this.memberId !== undefined) {
          this.positionedPending = false;
          this.spec.listener.positioned?.();
        }
        this.broker.changed();
        await new Promise<void>((resolve) => (this.wake = resolve));
        continue;
      }
      this.busy = true;
      try {
        await this.handle(work.topic, work.partition, work.offset);
      } catch (error) {
        this.busy = false;
        this.crash(asError(error));
        return;
      }
      this.busy = false;
    }
    this.broker.changed();
  }

  /** Delivers the record at `offset`, or asks where an out-of-range position continues. */
  private async handle(topic: string, partition: number, offset: number): Promise<void> {
    const log = this.broker.log(topic, partition)!;
    const version = this.version;
    if (!log.inRange(offset)) {
      const next = this.spec.outOfRange
        ? Number(await this.spec.outOfRange(topic, partition))
        : this.spec.fromBeginning
          ? log.low
          : log.high;
      if (this.version === version) this.positions.set(key(topic, partition), next);
      return;
    }
    // undefined: a record the client filters out (a transaction marker): passed, progress reported.
    const record = log.at(offset);
    if (record) await this.spec.sink(topic, partition, record);
    if (this.version !== version || this.positions.get(key(topic, partition)) !== offset) return;
    this.positions.set(key(topic, partition), offset + 1);
    this.spec.progress?.(topic, partition, String(offset + 1), record?.timestamp);
  }

  /** The first assigned partition with a record to hand over or a position out of range. */
  private nextWork(): { topic: string; partition: number; offset: number } | undefined {
    for (const [topic, partitions] of this.assignment) {
      if (this.spec.pauses?.paused(topic)) continue;
      for (const partition of partitions) {
        const offset = this.positions.get(key(topic, partition));
        const log = this.broker.log(topic, partition);
        if (offset === undefined || !log) continue;
        if (offset < log.high || !log.inRange(offset)) return { topic, partition, offset };
      }
    }
    return undefined;
  }

  /** @internal The broker removed this member (InMemoryKafka.fence). */
  fenced(error: Error): void {
    if (this.state !== 'running') return;
    this.crash(error);
    this.notify();
  }

  /** A sink that threw: the consumer stops, as a client does after its retries. */
  private crash(error: Error): void {
    this.state = 'stopped';
    this.unwatchPauses?.();
    this.broker.leave(this);
    this.spec.listener.crashed(error);
  }
}

function key(topic: string, partition: number): string {
  return `${topic}:${partition}`;
}
