import type {
  GroupConsumerSpec,
  GroupDescription,
  IncomingRecord,
  KafkaPort,
  KafkaPortAbout,
  OutgoingRecord,
  RawOutgoingRecord,
} from '../interfaces/kafka-port.interface.js';
import { InMemoryAdmin } from './in-memory-admin.js';
import { InMemoryKafka } from './in-memory-kafka.js';
import { InMemoryManualConsumer, networkTurns } from './in-memory-manual-consumer.js';
import type { InMemoryGroupMember } from './in-memory-member.js';

/** A record as a consumer receives it: `payload` as JSON, no key. */
export function incomingRecord(offset: number, payload: unknown, timestamp = Date.now()) {
  return {
    key: null,
    value: Buffer.from(JSON.stringify(payload)),
    timestamp: String(timestamp),
    offset: String(offset),
  } satisfies IncomingRecord;
}

/**
 * @internal The manual mode of the in-memory broker, for the unit specs of the engine's state
 * machines (reader, membership, allocator, dispatcher): a client of an InMemoryKafka whose
 * consumers join, crash and receive records only when the test says, whose groups take foreign
 * members and expire lingering ones on demand, and whose admin calls take a few event-loop turns
 * (a describe can be held). Topics, offsets, groups and rebalances are the broker's own.
 */
export class InMemoryManualPort implements KafkaPort {
  readonly admin: ManualAdmin;
  readonly consumers: InMemoryManualConsumer[] = [];
  /** When true, a started consumer joins at once; otherwise the test calls join(). */
  autoJoin = true;
  /** While set, describeGroup waits for it (a verification still under way). */
  describeGate: Promise<void> | undefined;
  /** describeGroup calls waiting for describeGate. */
  describeWaiting = 0;
  /** Called with 'connect', 'subscribe' and 'run' as each step of a consumer's start begins. */
  onStep: ((step: string) => void) | undefined;

  constructor(readonly broker = new InMemoryKafka()) {
    this.admin = new ManualAdmin(broker, this);
  }

  about(): KafkaPortAbout {
    return { client: 'in-memory' };
  }

  createGroupConsumer(spec: GroupConsumerSpec): InMemoryManualConsumer {
    const consumer = new InMemoryManualConsumer(spec, this);
    this.consumers.push(consumer);
    return consumer;
  }

  async send(topic: string, records: (OutgoingRecord | RawOutgoingRecord)[]): Promise<void> {
    await networkTurns();
    this.broker.append(topic, records as OutgoingRecord[]);
  }

  async disconnect(): Promise<void> {}

  /** Creates a topic with one partition per high watermark, filled with `{"n":<offset>}` records. */
  addTopic(topic: string, highWatermarks: string[] = ['0']): void {
    this.broker.createTopic(topic, highWatermarks.length);
    highWatermarks.forEach((high, partition) => this.fill(topic, partition, Number(high)));
  }

  /** Adds a partition to the topic, filled up to `high` (created after a snapshot, say). */
  addPartition(topic: string, high: number): void {
    this.broker.addPartitions(topic, 1);
    this.fill(topic, this.broker.partitions(topic)!.length - 1, high);
  }

  /** @internal The record at `offset`; the log is filled up to it first when it ends before. */
  recordAt(topic: string, partition: number, offset: number): IncomingRecord {
    this.fill(topic, partition, offset + 1);
    const record = this.broker.log(topic, partition)!.at(offset);
    if (!record) throw new Error(`${topic}[${partition}] no longer holds offset ${offset}`);
    return record;
  }

  /** The member ids of a group, live: add() puts a foreign member in, delete() expires one. */
  members(groupId: string): GroupMemberIds {
    return new GroupMemberIds(this.broker, groupId);
  }

  /** Every group that exists, with its member ids. */
  get groups(): Map<string, GroupMemberIds> {
    return new Map(this.broker.groupIds().map((groupId) => [groupId, this.members(groupId)]));
  }

  /** A lingering member's session expired (a foreign one's, or a crashed consumer's). */
  expire(groupId: string, memberId: string): void {
    this.members(groupId).delete(memberId);
  }

  /** The consumers that are running now. */
  running(): InMemoryManualConsumer[] {
    return this.consumers.filter((c) => c.running);
  }

  /** The newest consumer created for a group (for any group when none is named). */
  latest(groupId?: string): InMemoryManualConsumer {
    const consumer = this.consumers.filter((c) => !groupId || c.groupId === groupId).at(-1);
    if (!consumer) throw new Error(`no consumer${groupId ? ` for ${groupId}` : ''}`);
    return consumer;
  }

  /** Every member of every group. */
  allMembers(): string[] {
    return this.broker.allMembers().map((m) => m.memberId!);
  }

  private fill(topic: string, partition: number, high: number): void {
    const log = this.broker.log(topic, partition);
    if (!log) throw new Error(`no partition ${topic}[${partition}]`);
    while (log.high < high) {
      const { offset: _, ...record } = incomingRecord(log.high, { n: log.high });
      log.append(record);
    }
  }
}

/** The member ids of one group, as a set that changes the broker's group. */
export class GroupMemberIds implements Iterable<string> {
  constructor(
    private readonly broker: InMemoryKafka,
    private readonly groupId: string,
  ) {}

  /** A foreign member joins (another instance's consumer): nobody here hears of it until a join. */
  add(memberId: string): this {
    if (!this.has(memberId)) this.broker.join(foreignMember(this.groupId, memberId));
    return this;
  }

  /** The member leaves (or its session expired). */
  delete(memberId: string): boolean {
    const member = this.broker
      .allMembers()
      .find((m) => m.groupId === this.groupId && m.memberId === memberId);
    if (member) this.broker.leave(member);
    return member !== undefined;
  }

  has(memberId: string): boolean {
    return [...this].includes(memberId);
  }

  get size(): number {
    return [...this].length;
  }

  [Symbol.iterator](): Iterator<string> {
    return (this.broker.members(this.groupId) ?? [])[Symbol.iterator]();
  }
}

function foreignMember(groupId: string, memberId: string): InMemoryGroupMember {
  return {
    groupId,
    memberId,
    topics: [],
    userData: undefined,
    caughtUp: true,
    assigned: () => undefined,
    notify: () => undefined,
  };
}

/** The broker's admin, each call a few event-loop turns long; a describe waits for describeGate. */
class ManualAdmin extends InMemoryAdmin {
  constructor(
    broker: InMemoryKafka,
    private readonly port: InMemoryManualPort,
  ) {
    super(broker);
  }

  override async ensureTopics(topics: readonly string[]): Promise<void> {
    await networkTurns();
    return super.ensureTopics(topics);
  }

  override async deleteGroup(groupId: string) {
    await networkTurns();
    return super.deleteGroup(groupId);
  }

  override async describeGroup(groupId: string): Promise<GroupDescription> {
    await networkTurns();
    if (this.port.describeGate) {
      this.port.describeWaiting++;
      await this.port.describeGate;
      this.port.describeWaiting--;
    }
    return super.describeGroup(groupId);
  }

  override async latestOffsets(topics: readonly string[]) {
    await networkTurns();
    return super.latestOffsets(topics);
  }

  override async offsetBounds(topic: string) {
    await networkTurns();
    return super.offsetBounds(topic);
  }
}
