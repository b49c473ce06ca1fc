import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import kafkajs, { type Admin, type Kafka, type Producer } from 'kafkajs';
import type { BroadcastKafkaOptions } from '../../interfaces/broadcast-kafka-options.interface.js';
import {
  type OperatorDeleteOutcome,
  type OperatorGroup,
  type OperatorKafkaPort,
  type OperatorReadOptions,
  UNKNOWN_GROUP_STATE,
} from '../../interfaces/broadcast-operator.interface.js';
import { createKafkajsClient } from './kafkajs-client.js';
import { toKafkaConfig } from './kafkajs.adapter.js';
import { readTopic } from './kafkajs-topic-reader.js';

const NON_EMPTY_GROUP = 68;
const GROUP_ID_NOT_FOUND = 69;

/** The operator CLI's Kafka client: admin, a producer and throwaway readers, made on demand. */
export class KafkajsOperator implements OperatorKafkaPort {
  private readonly kafka: Kafka;
  private adminClient: Promise<Admin> | undefined;
  private producerClient: Promise<Producer> | undefined;

  constructor(options: BroadcastKafkaOptions) {
    this.kafka = createKafkajsClient({
      logLevel: kafkajs.logLevel.NOTHING,
      ...toKafkaConfig({ clientId: 'nestjs-kafka-broadcast-cli', ...options }),
    });
  }

  async listGroupIds(): Promise<string[]> {
    const { groups } = await (await this.admin()).listGroups();
    return groups.map((g) => g.groupId);
  }

  async describeGroups(groupIds: readonly string[]): Promise<OperatorGroup[]> {
    if (groupIds.length === 0) return [];
    const { groups } = await (await this.admin()).describeGroups([...groupIds]);
    return groups.map((g) => ({
      groupId: g.groupId,
      // kafkajs cannot send ConsumerGroupDescribe; DescribeGroups answers 'Dead', no members, for
      // a KIP-848 group as for a missing one. The groups described here were just listed, so
      // 'Dead' most likely is a KIP-848 group, whose members this client cannot know.
      state: g.state === 'Dead' ? UNKNOWN_GROUP_STATE : g.state,
      members: g.members.map((m) => ({
        memberId: m.memberId,
        clientId: m.clientId,
        clientHost: m.clientHost.replace(/^\//, ''),
        userData: memberUserData(m.memberMetadata),
      })),
    }));
  }

  async deleteGroup(groupId: string): Promise<OperatorDeleteOutcome> {
    try {
      await (await this.admin()).deleteGroups([groupId]);
      return 'deleted';
    } catch (error) {
      const groups = (error as { groups?: { groupId: string; errorCode: number }[] }).groups;
      const code = groups?.find((g) => g.groupId === groupId)?.errorCode;
      if (code === NON_EMPTY_GROUP) return 'non-empty';
      if (code === GROUP_ID_NOT_FOUND) return 'not-found';
      throw error;
    }
  }

  async publish(
    topic: string,
    record: { key: string | null; value: string; headers: Record<string, string> },
  ): Promise<{ partition: number; offset: string }> {
    this.producerClient ??= this.connectOnce('producerClient', () =>
      this.kafka.producer({ createPartitioner: kafkajs.Partitioners.DefaultPartitioner }),
    );
    const [meta] = await (await this.producerClient).send({ topic, acks: -1, messages: [record] });
    return { partition: meta?.partition ?? 0, offset: meta?.baseOffset ?? '' };
  }

  async read(topic: string, options: OperatorReadOptions): Promise<void> {
    // Named after the topic (so it shows what reads it), never matching `<prefix><base>-<n>`.
    const groupId = `${topic}.tail-${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
    await readTopic(this.kafka, await this.admin(), groupId, topic, options);
  }

  async disconnect(): Promise<void> {
    const [admin, producer] = [this.adminClient, this.producerClient];
    this.adminClient = this.producerClient = undefined;
    await Promise.all([
      admin?.then((a) => a.disconnect()).catch(() => undefined),
      producer?.then((p) => p.disconnect()).catch(() => undefined),
    ]);
  }

  private admin(): Promise<Admin> {
    this.adminClient ??= this.connectOnce('adminClient', () => this.kafka.admin());
    return this.adminClient;
  }

  /** Connects a new client; a failed connect is forgotten, so the next call tries again. */
  private connectOnce<C extends Admin | Producer>(
    slot: 'adminClient' | 'producerClient',
    make: () => C,
  ): Promise<C> {
    const client = make();
    const connecting = client.connect().then(() => client);
    connecting.catch(() => {
      if (this[slot] === connecting) this[slot] = undefined;
      return client.disconnect().catch(() => undefined);
    });
    return connecting;
  }
}

/** The user data of a member's subscription metadata, or undefined (other clients). */
function memberUserData(metadata: Buffer): string | undefined {
  try {
    const decoded = kafkajs.AssignerProtocol.MemberMetadata.decode(metadata);
    return decoded?.userData?.length ? decoded.userData.toString('utf8') : undefined;
  } catch {
    return undefined;
  }
}
