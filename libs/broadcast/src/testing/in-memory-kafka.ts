import type { IncomingRecord, OutgoingRecord } from '../interfaces/kafka-port.interface.js';
import type { InMemoryGroupMember } from './in-memory-member.js';
import { PartitionLog } from './in-memory-log.js';
import { InMemoryKafkaPort } from './in-memory-kafka.port.js';
import type { BackgroundWork } from '../shared/background-work.js';

/** Options of an in-memory broker. */
export interface InMemoryKafkaOptions {
  /** Partitions of every topic it creates (default 1). */
  partitions?: number;
}

/** A consumer group: its members in join order (the longest-standing one leads). */
interface Group {
  members: InMemoryGroupMember[];
  generation: number;
}

/**
 * A Kafka broker in this process, for tests without one: topics with partitions, offsets and the
 * records appended to them, consumer groups with members, and rebalances that assign every
 * partition of a subscribed topic to one member. Every engine of a test gets its own client from
 * `port()`; they all share these topics and groups, as instances share a cluster.
 */
export class InMemoryKafka {
  private readonly topics = new Map<string, PartitionLog[]>();
  private readonly groups = new Map<string, Group>();
  private readonly partitionCount: number;
  /** Consumers started and not stopped, joined or still joining. */
  private readonly running = new Set<InMemoryGroupMember>();
  private memberIds = 0;
  private waiters: (() => void)[] = [];
  /** The engines' retries, hooks and dead letters: settled() waits for them too. */
  private readonly background = new Set<BackgroundWork>();

  constructor(options: InMemoryKafkaOptions = {}) {
    this.partitionCount = Math.max(1, options.partitions ?? 1);
  }

  /** @internal A new client of this broker: what one engine is given as its KafkaPort. */
  port(): InMemoryKafkaPort {
    return new InMemoryKafkaPort(this);
  }

  /** Creates the topic unless it exists; consumers subscribed to it get its partitions. */
  createTopic(topic: string, partitions = this.partitionCount): void {
    if (this.topics.has(topic)) return;
    this.topics.set(
      topic,
      Array.from({ length: partitions }, () => new PartitionLog()),
    );
    for (const [, group] of this.groups) {
      if (group.members.some((m) => m.topics.includes(topic))) this.rebalance(group);
    }
  }

  /** @internal Adds partitions to an existing topic (as CreatePartitions does); its groups rebalance. */
  addPartitions(topic: string, count: number): void {
    const logs = this.topics.get(topic);
    if (!logs) throw new Error(`no topic ${topic}`);
    for (let i = 0; i < count; i++) logs.push(new PartitionLog());
    for (const [, group] of this.groups) {
      if (group.members.some((m) => m.topics.includes(topic))) this.rebalance(group);
    }
  }

  /** Topic names, in creation order. */
  topicNames(): string[] {
    return [...this.topics.keys()];
  }

  /** @internal The partitions of a topic, or undefined when it does not exist. */
  partitions(topic: string): readonly PartitionLog[] | undefined {
    return this.topics.get(topic);
  }

  /** @internal One partition's log. */
  log(topic: string, partition: number): PartitionLog | undefined {
    return this.topics.get(topic)?.[partition];
  }

  /**
   * @internal Appends records (creating the topic if needed, as auto-creation does). A keyed record goes to
   * the partition its key hashes to, so one key keeps its order; others go to partition 0.
   */
  append(topic: string, records: readonly OutgoingRecord[]): void {
    this.createTopic(topic);
    const logs = this.topics.get(topic)!;
    for (const record of records) {
      const partition = record.key === null ? 0 : hash(record.key) % logs.length;
      logs[partition]!.append({
        key: record.key === null ? null : Buffer.from(record.key),
        value: Buffer.from(record.value),
        timestamp: String(Date.now()),
        headers: { ...record.headers },
      });
    }
    for (const consumer of this.running) consumer.notify();
    this.changed();
  }

  /**
   * @internal Takes `count` offsets of the partition for records a client filters out
   * (transaction markers, aborted records): consumers pass them and report the progress.
   */
  appendFiltered(topic: string, partition: number, count = 1): void {
    const log = this.log(topic, partition);
    if (!log) throw new Error(`no partition ${topic}[${partition}]`);
    for (let i = 0; i < count; i++) log.appendFiltered();
    for (const consumer of this.running) consumer.notify();
    this.changed();
  }

  /**
   * @internal The coordinator removes a member (a fence, an expired session): its consumer
   * crashes with a fencing error and hands nothing over any more.
   */
  fence(groupId: string, memberId: string): void {
    const member = this.groups.get(groupId)?.members.find((m) => m.memberId === memberId);
    member?.fenced?.(new Error(`member ${memberId} of ${groupId} was fenced`));
  }

  /** @internal Per partition of the topic, the records still held, oldest first (none: no such topic). */
  records(topic: string): IncomingRecord[][] {
    return (this.topics.get(topic) ?? []).map((log) => [...log.all()]);
  }

  /** Removes the partition's records before `offset`, as retention would. */
  truncate(topic: string, partition: number, offset: number): void {
    this.log(topic, partition)?.truncate(offset);
  }

  /** Member ids of the group (join order), or undefined when the group does not exist. */
  members(groupId: string): string[] | undefined {
    return this.groups.get(groupId)?.members.map((m) => m.memberId!);
  }

  /** @internal The members themselves, of every group. */
  allMembers(): InMemoryGroupMember[] {
    return [...this.groups.values()].flatMap((g) => g.members);
  }

  /** The consumer groups that exist, members or not. */
  groupIds(): string[] {
    return [...this.groups.keys()];
  }

  /** @internal Deletes an empty group; 'non-empty' while it has members. */
  deleteGroup(groupId: string): 'deleted' | 'not-found' | 'non-empty' {
    const group = this.groups.get(groupId);
    if (!group) return 'not-found';
    if (group.members.length > 0) return 'non-empty';
    this.groups.delete(groupId);
    return 'deleted';
  }

  /** @internal A consumer started: settled() waits for it from now on, joined or not. */
  started(consumer: InMemoryGroupMember): void {
    this.running.add(consumer);
  }

  /** @internal A started consumer joins its group; every member gets the new assignment. */
  join(consumer: InMemoryGroupMember): void {
    let group = this.groups.get(consumer.groupId);
    if (!group) this.groups.set(consumer.groupId, (group = { members: [], generation: 0 }));
    consumer.memberId ??= `${consumer.groupId}-member-${++this.memberIds}`;
    if (!group.members.includes(consumer)) group.members.push(consumer);
    this.rebalance(group);
  }

  /** @internal A stopped or crashed consumer leaves; the others are assigned anew. */
  leave(consumer: InMemoryGroupMember): void {
    this.running.delete(consumer);
    const group = this.groups.get(consumer.groupId);
    if (!group || !group.members.includes(consumer)) return;
    group.members = group.members.filter((m) => m !== consumer);
    if (group.members.length > 0) this.rebalance(group);
    this.changed();
  }

  /**
   * Resolves once every running member of every group has handed each record of its partitions
   * to its sink and that call settled, and no engine of this broker has a retry, an
   * `onHandlerError` call or a dead letter under way: every handler has its final outcome.
   */
  async settled(): Promise<void> {
    while (!this.quiet()) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** @internal An engine's background work, waited for by settled(). */
  addBackground(work: BackgroundWork): void {
    if (this.background.has(work)) return;
    this.background.add(work);
    work.onIdle(() => this.changed());
  }

  private quiet(): boolean {
    return (
      [...this.running].every((consumer) => consumer.caughtUp) &&
      [...this.background].every((work) => work.idle)
    );
  }

  /** @internal Something a waiter of settled() may be waiting for happened. */
  changed(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Each subscribed topic's partitions are shared out among the members in join order. */
  private rebalance(group: Group): void {
    group.generation++;
    const assignments = new Map(group.members.map((m) => [m, new Map<string, number[]>()]));
    const topics = new Set(group.members.flatMap((m) => [...m.topics]));
    for (const topic of topics) {
      const subscribers = group.members.filter((m) => m.topics.includes(topic));
      const logs = this.topics.get(topic) ?? [];
      logs.forEach((_, partition) => {
        const member = subscribers[partition % subscribers.length]!;
        const assignment = assignments.get(member)!;
        assignment.set(topic, [...(assignment.get(topic) ?? []), partition]);
      });
      for (const member of subscribers) {
        const assignment = assignments.get(member)!;
        if (!assignment.has(topic)) assignment.set(topic, []);
      }
    }
    const leader = group.members[0];
    for (const [member, assignment] of assignments) {
      member.assigned(member.memberId!, assignment, member === leader);
    }
  }
}

/** A stable, non-negative hash of a key (not Kafka's murmur2: only stability matters here). */
function hash(key: string): number {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (Math.imul(h, 31) + key.charCodeAt(i)) | 0;
  return Math.abs(h);
}
