/**
 * Issue #37: a KIP-848 member's records are held once the broker may have expired it, counted
 * from the broker's own session for the group (platformatic-group-session.ts), which the adapter
 * reads with one DescribeConfigs of the group resource: the group's dynamic
 * `consumer.session.timeout.ms` when it has one, else the broker's
 * `group.consumer.session.timeout.ms`. Asked on the real broker, both ways.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Admin } from '@platformatic/kafka';
import { readGroupSessionMs } from '../../libs/broadcast/src/adapters/platformatic/platformatic-group-session.js';
import {
  createTopics,
  kafkaBrokers,
  newAdmin,
  testPrefix,
  waitFor,
} from '../support/broker/kafka.js';
import { kip848Adapter, member } from '../support/broker/kip848-port.js';

const BROKER = 4;
const GROUP = 32;
const SET = 0;
const DELETE = 1;
const KEY = 'consumer.session.timeout.ms';
/** @platformatic/kafka's channel for every answer a connection receives (diagnostic.js). */
const ANSWERS = 'tracing:plt:kafka:connections:api:asyncStart';
const DESCRIBE_CONFIGS = 32;

describe('the session the broker gives a KIP-848 group (@platformatic/kafka)', () => {
  it("reads the broker's default for a group without its own, and the group's own once set", async () => {
    const prefix = testPrefix('port-kip848-session');
    const admin = new Admin({ clientId: `${prefix}admin`, bootstrapBrokers: kafkaBrokers() });
    const [host, port] = kafkaBrokers()[0]!.split(':');
    const own = `${prefix}own`;
    try {
      const { brokers } = await admin.metadata({ topics: [] });
      const [nodeId] = [...brokers.keys()];
      const [brokerConfig] = await admin.describeConfigs({
        resources: [
          {
            resourceType: BROKER,
            resourceName: String(nodeId),
            configurationKeys: ['group.consumer.session.timeout.ms'],
          },
        ],
      });
      const brokerSession = Number(brokerConfig!.configs[0]!.value);
      expect(brokerSession).toBeGreaterThan(0);
      const connection = await admin.connections.get({ host: host!, port: Number(port) });

      expect(await readGroupSessionMs(connection, `${prefix}plain`)).toBe(brokerSession);

      const ownSession = brokerSession + 1_000;
      await admin.incrementalAlterConfigs({
        resources: [
          {
            resourceType: GROUP,
            resourceName: own,
            configs: [{ name: KEY, configOperation: SET, value: String(ownSession) }],
          },
        ],
      });
      expect(await readGroupSessionMs(connection, own)).toBe(ownSession);
    } finally {
      await admin
        .incrementalAlterConfigs({
          resources: [
            {
              resourceType: GROUP,
              resourceName: own,
              configs: [{ name: KEY, configOperation: DELETE }],
            },
          ],
        })
        .catch(() => undefined);
      await admin.close();
    }
  });

  it('is read by a member once it heartbeats past its first interval', async () => {
    const prefix = testPrefix('port-kip848-session-member');
    const topic = `${prefix}t`;
    const groupId = `${prefix}g`;
    const kafkajsAdmin = await newAdmin();
    await createTopics(kafkajsAdmin, [{ topic, numPartitions: 1 }]).finally(() =>
      kafkajsAdmin.disconnect(),
    );
    const read: unknown[] = [];
    const onAnswer = (message: unknown) => {
      const { apiKey, result } = message as {
        apiKey?: number;
        result?: { results?: { resourceName: string; configs: { name: string }[] }[] };
      };
      const asked = result?.results?.[0];
      if (apiKey === DESCRIBE_CONFIGS && asked?.resourceName === groupId)
        read.push(asked.configs.map((c) => c.name));
    };
    subscribe(ANSWERS, onAnswer);
    const adapter = kip848Adapter(kafkaBrokers(), `${prefix}client`);
    const m = member(adapter, groupId, topic);
    try {
      await m.consumer.start();
      await waitFor(() => read.length > 0, {
        timeoutMs: 30_000,
        message: "the member never read its group's session",
      });
      expect(read).toEqual([[KEY]]);
      expect(m.heard.crashes).toEqual([]);
    } finally {
      unsubscribe(ANSWERS, onAnswer);
      await m.consumer.stop();
      await adapter.disconnect();
    }
  });
});
