/**
 * The admin adapters' group calls on the real broker: deleteGroup answers deleted / non-empty /
 * not-found, describeGroup lists the live member, and the requests on the wire are the clients'
 * adapters' own. kafkajs: the adapter goes straight to the group's coordinator, found once,
 * through kafkajs's Cluster (kafkajs-group-coordinators.ts; kafkajs's admin re-reads the cluster's
 * metadata before every DeleteGroups and looks the coordinator up for every call); the adapter's
 * requests (by its client id) are counted by wrapping kafkajs's Connection.send.
 * @platformatic/kafka: the same answers; its admin finds the coordinator before every group call
 * (no metadata); its requests are counted on the client's own diagnostics channel
 * (`plt:kafka:connections:api`), the only @platformatic/kafka client here.
 * @confluentinc/kafka-javascript: the same answers (either group protocol,
 * BROADCAST_GROUP_PROTOCOL; the test's consumer is a classic kafkajs one); librdkafka opens its
 * sockets in C, so the adapter bootstraps at a proxy in front of the run's broker that keeps it
 * there (advertising-proxy.ts) and the proxy counts its requests, its DescribeGroups helper
 * process's included (the only client behind that proxy; the helper started before counting).
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createRequire } from 'node:module';
import type { Consumer } from 'kafkajs';
import { KafkajsAdapter } from '../../libs/broadcast/src/adapters/kafkajs/kafkajs.adapter.js';
import { PlatformaticAdapter } from '../../libs/broadcast/src/adapters/platformatic/platformatic.adapter.js';
import type { KafkaAdminPort } from '../../libs/broadcast/src/interfaces/kafka-port.interface.js';
import { startAdvertisingProxy } from '../support/broker/advertising-proxy.js';
import { groupProtocolOf, kafkaClientsOf } from '../support/broker/kafka-clients.js';
import {
  createTopics,
  kafkaBrokers,
  newAdmin,
  newKafka,
  testPrefix,
  waitFor,
} from '../support/broker/kafka.js';

/** The adapter's own DeleteGroups and DescribeGroups, to the coordinator it finds once and keeps. */
const KAFKAJS_FIRST = ['FindCoordinator', 'DeleteGroups', 'DescribeGroups'];
/** The adapter's own DeleteGroups, to the coordinator it finds once and keeps. */
const PLATFORMATIC_DELETE_FIRST = ['FindCoordinator', 'DeleteGroups'];
const PLATFORMATIC_DELETE = ['DeleteGroups'];
/** Once the adapter knows the group's coordinator (it keeps the one it found). */
const PLATFORMATIC_DESCRIBE_DEAD_KNOWN = [
  'FindCoordinator',
  'DescribeGroups',
  'ConsumerGroupDescribe',
];
const CONFLUENT_DELETE_FIRST = ['FindCoordinator', 'DeleteGroups'];
const CONFLUENT_DELETE = ['DeleteGroups'];
const CONFLUENT_DESCRIBE = ['ConsumerGroupDescribe', 'DescribeGroups'];
const API = {
  3: 'Metadata',
  10: 'FindCoordinator',
  15: 'DescribeGroups',
  42: 'DeleteGroups',
  69: 'ConsumerGroupDescribe',
};
const require = createRequire(import.meta.url);
const Connection = require('kafkajs/src/network/connection.js') as {
  prototype: {
    clientId: string;
    send(request: { request: { apiKey: number } }): Promise<unknown>;
  };
};

/** One adapter's admin, and how its group requests are counted on the wire. */
interface AdminUnderTest {
  adapter: KafkaAdminPort & { disconnect(): Promise<void> };
  /** Starts pushing the name of every counted request to `sent`; returns the undo. */
  count(sent: string[]): () => void;
  /** Requests after the first not-found answer and description, and after the last four calls. */
  expected: { first: string[]; later: string[] };
  /** Closes what counting needed (after the adapter's disconnect). */
  close?(): Promise<void>;
}

const TOPIC_SETTINGS = { numPartitions: 1, replicationFactor: 1 };
const CONSUMER_TIMINGS = {
  sessionTimeoutMs: 6_000,
  heartbeatIntervalMs: 500,
  maxWaitTimeMs: 100,
  metadataMaxAgeMs: 300_000,
};
const SILENT = { log: () => undefined, warn: () => undefined, error: () => undefined };

async function kafkajsAdmin(clientId: string): Promise<AdminUnderTest> {
  return {
    adapter: new KafkajsAdapter(
      {
        kafka: { brokers: kafkaBrokers(), clientId },
        consumer: CONSUMER_TIMINGS,
        topics: { ...TOPIC_SETTINGS },
      },
      SILENT,
    ).admin,
    count(sent) {
      const send = Connection.prototype.send;
      Connection.prototype.send = function (this: { clientId: string }, request) {
        const name = API[request.request.apiKey as keyof typeof API];
        if (name && this.clientId === clientId) sent.push(name);
        return send.call(this, request);
      };
      return () => void (Connection.prototype.send = send);
    },
    // Since 2026-12-07 the adapter's own requests, through kafkajs's Cluster, at the group's
    // coordinator as found once (kafkajs-group-coordinators.ts): kafkajs's deleteGroups read the
    // metadata and looked the coordinator up before every DeleteGroups, and its describeGroups
    // looked it up again before every DescribeGroups.
    expected: {
      first: KAFKAJS_FIRST,
      later: ['DeleteGroups', 'DescribeGroups', 'DeleteGroups', 'DescribeGroups'],
    },
  };
}

async function platformaticAdmin(clientId: string): Promise<AdminUnderTest> {
  const adapter = new PlatformaticAdapter(
    {
      kafka: { brokers: kafkaBrokers(), clientId },
      consumer: CONSUMER_TIMINGS,
      topics: { ...TOPIC_SETTINGS },
    },
    SILENT,
  );
  const channel = 'tracing:plt:kafka:connections:api:start';
  return {
    adapter: adapter.admin,
    count(sent) {
      const onSend = (message: unknown) => {
        const name = API[(message as { apiKey: number }).apiKey as keyof typeof API];
        if (name) sent.push(name);
      };
      subscribe(channel, onSend);
      return () => void unsubscribe(channel, onSend);
    },
    // The client's admin looks the coordinator up before every group call (no metadata), as its
    // DescribeGroups still does. The adapter sends DeleteGroups itself, to the coordinator it
    // found the first time (since 2026-12-07: a start with a delete asked FindCoordinator twice
    // for its group), and, since a KIP-848 group looks Dead to DescribeGroups, it asks a group
    // DescribeGroups calls Dead again with ConsumerGroupDescribe, to the same coordinator.
    expected: {
      first: [...PLATFORMATIC_DELETE_FIRST, ...PLATFORMATIC_DESCRIBE_DEAD_KNOWN],
      later: [
        ...PLATFORMATIC_DELETE,
        'FindCoordinator',
        'DescribeGroups',
        ...PLATFORMATIC_DELETE,
        ...PLATFORMATIC_DESCRIBE_DEAD_KNOWN,
      ],
    },
  };
}

async function confluentAdmin(clientId: string): Promise<AdminUnderTest> {
  const proxy = await startAdvertisingProxy();
  // Loaded here: the native addon only for this row.
  const { ConfluentAdapter } =
    await import('../../libs/broadcast/src/adapters/confluent/confluent.adapter.js');
  const adapter = new ConfluentAdapter(
    {
      kafka: { brokers: proxy.brokers, clientId, ...groupProtocolOf('confluent') },
      consumer: CONSUMER_TIMINGS,
      topics: { ...TOPIC_SETTINGS },
    },
    SILENT,
  );
  // The DescribeGroups helper process starts with the adapter's first call (warm()) and would
  // race the counted calls with its own connections' Metadata and FindCoordinator: it is started
  // here, with a describe of a group that does not exist, before anything is counted (a start's
  // cost is start-requests.spec.ts's).
  await adapter.admin.describeGroup(`${clientId}-warm`);
  return {
    adapter: adapter.admin,
    count(sent) {
      proxy.onRequest = (frame) => {
        const name = API[frame.apiKey as keyof typeof API];
        if (name) sent.push(name);
      };
      return () => void (proxy.onRequest = undefined);
    },
    // Every delete and describe runs in the helper process (confluent-describe-helper.ts: either
    // can end the process it runs in), whose one client looks the group's coordinator up at its
    // first request for the group and keeps it; librdkafka asks ConsumerGroupDescribe first and
    // DescribeGroups after it for a group the first does not know (classic, or none).
    expected: {
      first: [...CONFLUENT_DELETE_FIRST, ...CONFLUENT_DESCRIBE],
      later: [
        ...CONFLUENT_DELETE,
        ...CONFLUENT_DESCRIBE,
        ...CONFLUENT_DELETE,
        ...CONFLUENT_DESCRIBE,
      ],
    },
    close: () => proxy.close(),
  };
}

const ADMINS = {
  kafkajs: kafkajsAdmin,
  platformatic: platformaticAdmin,
  confluent: confluentAdmin,
};

describe.each(kafkaClientsOf(ADMINS))(
  '%s admin adapter: group calls on the real broker',
  (client) => {
    const prefix = testPrefix(`group-coordinators-${client.slice(0, 4)}`);
    const topic = `${prefix}t`;
    const sent: string[] = [];
    let consumer: Consumer | undefined;
    const clientId = `${prefix}adapter`;
    let under: AdminUnderTest | undefined;
    let uncount: () => void = () => undefined;

    beforeAll(async () => {
      under = await ADMINS[client](clientId);
      const admin = await newAdmin();
      try {
        await createTopics(admin, [{ topic, numPartitions: 1 }]);
      } finally {
        await admin.disconnect();
      }
      uncount = under.count(sent);
    });

    afterAll(async () => {
      uncount();
      await consumer?.disconnect();
      const admin = await newAdmin();
      try {
        const groups = (await admin.listGroups()).groups.map((g) => g.groupId);
        const ours = groups.filter((g) => g.startsWith(prefix));
        if (ours.length > 0) await admin.deleteGroups(ours);
        await admin.deleteTopics({ topics: [topic] });
      } finally {
        await admin.disconnect();
        await under?.adapter.disconnect();
        await under?.close?.();
      }
    });

    it('answers not-found, non-empty and deleted, describes the member, and sends only the expected requests', async () => {
      const { adapter, expected } = under!;
      const groupId = `${prefix}g`;
      const deadline = Date.now() + 30_000;
      await adapter.ensureTopics([topic]);

      sent.length = 0;
      await expect(adapter.deleteGroup(groupId, deadline)).resolves.toBe('not-found');
      await expect(adapter.describeGroup(groupId)).resolves.toEqual({
        state: 'Dead',
        memberIds: [],
      });
      expect(sent).toEqual(expected.first);

      consumer = newKafka().consumer({ groupId, maxWaitTimeInMs: 100 });
      let memberId = '';
      consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => (memberId = payload.memberId));
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({ eachMessage: async () => undefined });
      await waitFor(() => memberId !== '', { timeoutMs: 30_000, message: 'consumer never joined' });

      sent.length = 0;
      await expect(adapter.deleteGroup(groupId, deadline)).resolves.toBe('non-empty');
      await expect(adapter.describeGroup(groupId)).resolves.toEqual({
        state: 'Stable',
        memberIds: [memberId],
      });
      await consumer.disconnect();
      consumer = undefined;
      await expect(adapter.deleteGroup(groupId, deadline)).resolves.toBe('deleted');
      await expect(adapter.describeGroup(groupId)).resolves.toMatchObject({ memberIds: [] });
      expect(sent).toEqual(expected.later);
    });
  },
);
