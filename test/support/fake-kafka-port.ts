// A deterministic, in-memory KafkaPort (and advisory locks) for unit tests of the engine's state
// machines: reader, membership, allocator and dispatcher. It models only what the engine sees
// through the port: groups and their members, high watermarks, joins (with assignments), seeks,
// crashes and records handed to the sink. Real broker behaviour is proven in test/*.spec.ts.
import type {
  AdvisoryLockProvider,
  HeldLock,
  LockMode,
} from '../../libs/broadcast/src/interfaces/advisory-lock.interface.js';
import type { LiveGroupMember } from '../../libs/broadcast/src/interfaces/broadcast-roster.interface.js';
import type {
  DeleteGroupOutcome,
  GroupConsumerPort,
  GroupConsumerSpec,
  GroupDescription,
  IncomingRecord,
  KafkaAdminPort,
  KafkaPort,
  OffsetBounds,
  OutgoingRecord,
  TopicOffsets,
} from '../../libs/broadcast/src/interfaces/kafka-port.interface.js';

/** Lets other queued work run: every fake network call yields this many times. */
async function tick(turns = 3): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

export interface Seek {
  topic: string;
  partition: number;
  offset: string;
}

export class FakeGroupConsumer implements GroupConsumerPort {
  readonly groupId: string;
  state: 'new' | 'starting' | 'running' | 'stopped' = 'new';
  memberId: string | undefined;
  /** Seeks since the last join, in order. */
  readonly seeks: Seek[] = [];
  private starting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  private lingers = false;

  constructor(
    readonly spec: GroupConsumerSpec,
    private readonly broker: FakeKafkaPort,
  ) {
    this.groupId = spec.groupId;
  }

  /** Honours the port's contract: a stop during start waits for it, and nothing joins after. */
  start(): Promise<void> {
    this.starting ??= (async () => {
      this.state = 'starting';
      for (const step of ['connect', 'subscribe', 'run']) {
        this.broker.probe?.(step);
        await tick();
        if (this.stopping) return;
      }
      this.state = 'running';
      if (this.broker.autoJoin) this.join();
    })();
    return this.starting;
  }

  seek(topic: string, partition: number, offset: string): void {
    this.seeks.push({ topic, partition, offset });
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await this.starting;
      await tick();
      this.leave();
      this.state = 'stopped';
    })();
    return this.stopping;
  }

  get running(): boolean {
    return this.state === 'running';
  }

  /** (Re)joins: a new member id the first time, the whole subscription assigned. */
  join(): void {
    if (!this.running) throw new Error(`${this.groupId}: join while ${this.state}`);
    this.memberId ??= this.broker.nextMemberId();
    this.broker.members(this.groupId).add(this.memberId);
    this.seeks.length = 0;
    // As Kafka's coordinator: the longest-standing member leads.
    const leader = [...this.broker.members(this.groupId)][0] === this.memberId;
    this.spec.listener.joined(this.memberId, this.broker.assignment(this.spec.topics), leader);
  }

  /**
   * A join the broker took in but never answered (KIP-848: the client made the member id and
   * told the listener first): the member is in the group, `joined` never comes.
   */
  joinUnanswered(): void {
    if (!this.running) throw new Error(`${this.groupId}: join while ${this.state}`);
    this.memberId ??= this.broker.nextMemberId();
    this.spec.listener.joining?.(this.memberId);
    this.broker.members(this.groupId).add(this.memberId);
  }

  /**
   * The consumer stops on an error. With `memberLingers`, its member stays in the group (as a
   * crashed process's does until its session expires) until the test calls `broker.expire()`.
   */
  crash(error = new Error('crashed'), memberLingers = false): void {
    this.state = 'stopped';
    this.lingers = memberLingers;
    this.spec.listener.crashed(error);
  }

  /** Hands records to the sink as a fetch would (awaiting handlers one by one). */
  async deliver(topic: string, partition: number, offsets: number[], timestamp = Date.now()) {
    for (const offset of offsets) {
      if (!this.running) return;
      await this.spec.sink(topic, partition, record(offset, { n: offset }, timestamp));
    }
  }

  private leave(): void {
    if (this.memberId && !this.lingers) this.broker.members(this.groupId).delete(this.memberId);
  }
}

/** A record as the consumer would receive it. */
export function record(offset: number, payload: unknown, timestamp = Date.now()): IncomingRecord {
  return {
    key: null,
    value: Buffer.from(JSON.stringify(payload)),
    timestamp: String(timestamp),
    offset: String(offset),
  };
}

class FakeAdmin implements KafkaAdminPort {
  constructor(private readonly broker: FakeKafkaPort) {}

  async ensureTopics(topics: readonly string[]): Promise<void> {
    await tick();
    for (const topic of topics) if (!this.broker.partitions.has(topic)) this.broker.addTopic(topic);
  }

  async deleteGroup(groupId: string): Promise<DeleteGroupOutcome> {
    await tick();
    const members = this.broker.groups.get(groupId);
    if (!members) return 'not-found';
    if (members.size > 0) return 'non-empty';
    this.broker.groups.delete(groupId);
    return 'deleted';
  }

  async describeGroup(groupId: string): Promise<GroupDescription> {
    await tick();
    if (this.broker.describeGate) {
      this.broker.describeWaiting++;
      await this.broker.describeGate;
      this.broker.describeWaiting--;
    }
    const members = [...(this.broker.groups.get(groupId) ?? [])];
    return { state: members.length > 0 ? 'Stable' : 'Empty', memberIds: members };
  }

  async latestOffsets(topics: readonly string[]): Promise<TopicOffsets> {
    await tick();
    return new Map(
      topics.map((topic) => [topic, new Map(this.broker.partitions.get(topic) ?? new Map())]),
    );
  }

  async offsetBounds(topic: string): Promise<Map<number, OffsetBounds>> {
    await tick();
    const highs = this.broker.partitions.get(topic) ?? new Map<number, string>();
    const lows = this.broker.logStarts.get(topic);
    return new Map(
      [...highs].map(([partition, high]) => [
        partition,
        { low: lows?.get(partition) ?? '0', high },
      ]),
    );
  }

  async offsetsForTimestamp(topic: string): Promise<Map<number, string>> {
    return new Map(this.broker.partitions.get(topic) ?? new Map<number, string>());
  }

  async liveMembers(): Promise<LiveGroupMember[]> {
    return [];
  }

  async occupiedGroups(): Promise<string[]> {
    return [...this.broker.groups].filter(([, m]) => m.size > 0).map(([groupId]) => groupId);
  }

  async disconnect(): Promise<void> {}
}

export class FakeKafkaPort implements KafkaPort {
  readonly admin: KafkaAdminPort = new FakeAdmin(this);
  /** groupId → member ids. */
  readonly groups = new Map<string, Set<string>>();
  /** topic → partition → high watermark. */
  readonly partitions = new Map<string, Map<number, string>>();
  /** topic → partition → log start offset, where it is not 0 (retention removed records). */
  readonly logStarts = new Map<string, Map<number, string>>();
  readonly consumers: FakeGroupConsumer[] = [];
  readonly sent: { topic: string; records: OutgoingRecord[] }[] = [];
  /** When true, a started consumer joins at once; otherwise the test calls join(). */
  autoJoin = true;
  /** While set, describeGroup waits for it (a verification still under way). */
  describeGate: Promise<void> | undefined;
  /** describeGroup calls waiting for describeGate. */
  describeWaiting = 0;
  /** The test hook a real adapter takes in its constructor: each consumer's start steps. */
  probe: ((step: string) => void) | undefined;
  private members_ = 0;

  createGroupConsumer(spec: GroupConsumerSpec): GroupConsumerPort {
    const consumer = new FakeGroupConsumer(spec, this);
    this.consumers.push(consumer);
    return consumer;
  }

  async send(topic: string, records: OutgoingRecord[]): Promise<void> {
    await tick();
    this.sent.push({ topic, records });
  }

  async disconnect(): Promise<void> {}

  addTopic(topic: string, highWatermarks: string[] = ['0']): void {
    this.partitions.set(topic, new Map(highWatermarks.map((high, p) => [p, high])));
  }

  members(groupId: string): Set<string> {
    let members = this.groups.get(groupId);
    if (!members) this.groups.set(groupId, (members = new Set()));
    return members;
  }

  nextMemberId(): string {
    return `member-${++this.members_}`;
  }

  assignment(topics: readonly string[]): Map<string, number[]> {
    return new Map(topics.map((t) => [t, [...(this.partitions.get(t)?.keys() ?? [])]]));
  }

  /** A lingering member's session expired. */
  expire(groupId: string, memberId: string): void {
    this.groups.get(groupId)?.delete(memberId);
  }

  /** The consumers that are running now. */
  running(): FakeGroupConsumer[] {
    return this.consumers.filter((c) => c.running);
  }

  /** The newest consumer created for a group. */
  latest(groupId?: string): FakeGroupConsumer {
    const matching = this.consumers.filter((c) => !groupId || c.groupId === groupId);
    const consumer = matching.at(-1);
    if (!consumer) throw new Error(`no consumer${groupId ? ` for ${groupId}` : ''}`);
    return consumer;
  }

  /** Every member of every group. */
  allMembers(): string[] {
    return [...this.groups.values()].flatMap((members) => [...members]);
  }
}

/**
 * Advisory locks in memory. `lose(id)` is a killed lock session whose id another instance took
 * at once: the old holder's checks read false, and its release frees nothing.
 */
export class FakeLocks implements AdvisoryLockProvider {
  /** id → the token of the session holding it. */
  private readonly owners = new Map<number, symbol>();

  constructor(readonly mode: LockMode = 'postgres') {}

  get held(): Set<number> {
    return new Set(this.owners.keys());
  }

  async tryLock(id: number): Promise<HeldLock | null> {
    await tick();
    if (this.owners.has(id)) return null;
    const token = Symbol(`lock-${id}`);
    this.owners.set(id, token);
    const owners = this.owners;
    return {
      id,
      async isHeld() {
        return owners.get(id) === token;
      },
      async release() {
        if (owners.get(id) === token) owners.delete(id);
      },
    };
  }

  lose(id: number): void {
    this.owners.set(id, Symbol(`lock-${id}-taken-over`));
  }

  /** Another instance gives up an id it took over. */
  free(id: number): void {
    this.owners.delete(id);
  }
}
