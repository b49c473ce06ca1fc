import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import type {
  OperatorDeleteOutcome,
  OperatorGroup,
  OperatorKafkaPort,
  OperatorReadOptions,
} from '../../interfaces/broadcast-operator.interface.js';
import type { AdapterOptions } from '../shared/adapter-types.js';
import { readTopic } from '../shared/topic-reader.js';
import { stateName } from './confluent-admin.js';
import { ConfluentAdapter } from './confluent.adapter.js';
import { toRdkafkaConfig } from './confluent-config.js';
import { ConfluentErrors, RD, rdCode } from './confluent-errors.js';
import { ConfluentDescribeHelper } from './confluent-describe-helper.js';
import { ConfluentTokens } from './confluent-oauth-tokens.js';
import { AdminTokenGate } from './confluent-admin-token-gate.js';
import { AdminClient, answer, type IAdminClient } from './confluent-library.js';
import { ConfluentProducer } from './confluent-producer.js';
import { carriedUserData } from './confluent-member-client-id.js';

/** An operator request's own timeout. */
const TIMEOUT_MS = 10_000;

/**
 * The operator CLI's Kafka client on @confluentinc/kafka-javascript: an admin and a producer made
 * on demand, and the adapter's own group consumer for reading (`tail`, receipts), so a tail reads
 * exactly as an instance does.
 */
export class ConfluentOperator implements OperatorKafkaPort {
  private adminClient: IAdminClient | undefined;
  private producer: ConfluentProducer | undefined;
  private reader: ConfluentAdapter | undefined;
  private describer: ConfluentDescribeHelper | undefined;
  /** SASL/OAUTHBEARER only: keeps the admin's requests and token hand-overs apart. */
  private adminGate: AdminTokenGate | undefined;
  private readonly errors: ConfluentErrors;
  /** SASL/OAUTHBEARER only: the provider's tokens for the admin, producer and helper. */
  private readonly tokens: ConfluentTokens | undefined;

  constructor(
    private readonly options: AdapterOptions,
    private readonly brokers: string[],
  ) {
    this.errors = new ConfluentErrors(options.kafka);
    this.tokens = ConfluentTokens.of(options.kafka.sasl, (failure) =>
      this.errors.noteToken(failure),
    );
  }

  async listGroupIds(): Promise<string[]> {
    const { groups } = await this.named(() =>
      this.adminCall<{ groups: { groupId: string }[] }>((admin, cb) =>
        admin.listGroups({ timeout: TIMEOUT_MS }, cb),
      ),
    );
    return groups.map((g) => g.groupId);
  }

  async describeGroups(groupIds: readonly string[]): Promise<OperatorGroup[]> {
    if (groupIds.length === 0) return [];
    // In a child process: the binding segfaults on a group whose describe failed (upstream #531).
    const groups = await this.named(() => this.helper().describeGroups(groupIds));
    return groups.map((g) => ({
      groupId: g.groupId,
      state: rdCode(g.error) === RD.GROUP_ID_NOT_FOUND ? 'Dead' : stateName(g.state),
      members: g.members.map((m) => ({
        memberId: m.memberId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        userData: carriedUserData(m.clientId),
      })),
    }));
  }

  async deleteGroup(groupId: string): Promise<OperatorDeleteOutcome> {
    // In the helper too: one that timed out with the brokers away aborts librdkafka's process
    // once they answer again (upstream confluentinc/librdkafka#4605, confluent-describe-helper.ts).
    const [result] = await this.named(() => this.helper().deleteGroups([groupId]));
    if (!result?.error) return 'deleted';
    const answered = this.errors.deleteAnswer(result.error);
    if (answered) return answered;
    throw this.errors.fatal(result.error) ?? result.error;
  }

  async publish(
    topic: string,
    record: { key: string | null; value: string; headers: Record<string, string> },
  ): Promise<{ partition: number; offset: string }> {
    const producer = (this.producer ??= new ConfluentProducer(this.config(), this.tokens));
    const headers = Object.entries(record.headers).map(([k, v]) => ({ [k]: v }));
    const [written] = await this.named(() =>
      producer.send(topic, [{ key: record.key, value: record.value, headers }]),
    );
    return { partition: written?.partition ?? 0, offset: written?.offset ?? '' };
  }

  async read(topic: string, options: OperatorReadOptions): Promise<void> {
    // Named after the topic (so it shows what reads it), never matching `<prefix><base>-<n>`.
    const groupId = `${topic}.tail-${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
    const reader = (this.reader ??= new ConfluentAdapter(
      { ...this.options, kafka: { ...this.options.kafka, brokers: this.brokers } },
      silent,
    ));
    await this.named(() => readTopic(reader, groupId, topic, options));
  }

  async disconnect(): Promise<void> {
    const [admin, producer, reader] = [this.adminClient, this.producer, this.reader];
    const describer = this.describer;
    this.adminClient = this.producer = this.reader = this.describer = this.adminGate = undefined;
    admin?.disconnect();
    await Promise.all([
      describer?.close(),
      producer?.close().catch(() => undefined),
      reader?.disconnect().catch(() => undefined),
    ]);
  }

  /** Runs `call`, a refused login, TLS failure or missing ACL named as the engine names it. */
  private async named<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw this.errors.fatal(error) ?? error;
    }
  }

  /** The group requests' helper process, started on the first. */
  private helper(): ConfluentDescribeHelper {
    this.describer ??= new ConfluentDescribeHelper(this.config(), TIMEOUT_MS, this.tokens);
    return this.describer;
  }

  /** One request of the admin client, made on the first (past its token gate, if any). */
  private adminCall<T>(
    request: (admin: IAdminClient, cb: (err: unknown, result: T) => void) => void,
  ): Promise<T> {
    if (!this.adminClient) {
      this.adminGate = this.tokens && new AdminTokenGate(this.tokens);
      this.adminClient = AdminClient.create({ ...this.config(), ...this.adminGate?.config() });
      this.tokens?.follow(this.adminClient);
    }
    const admin = this.adminClient;
    const call = () => answer<T>((cb) => request(admin, cb));
    return this.adminGate ? this.adminGate.run(call, TIMEOUT_MS) : call();
  }

  private config() {
    return toRdkafkaConfig(this.options.kafka, this.brokers);
  }
}

/** The CLI prints its own errors; the reader's consumer logs nothing. */
const silent: BroadcastLogger = {
  log: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
