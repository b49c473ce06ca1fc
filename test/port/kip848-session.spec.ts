/**
 * Issue #37: a KIP-848 member's records are held once the broker may have expired it, counted
 * from the broker's own session for the group (platformatic-group-session.ts), which the adapter
 * reads with one DescribeConfigs of the group resource: the group's dynamic
 * `consumer.session.timeout.ms` when it has one, else the broker's
 * `group.consumer.session.timeout.ms`. Asked on the real broker, both ways.
 */
import { Admin } from '@platformatic/kafka';
import { readGroupSessionMs } from '../../libs/broadcast/src/adapters/platformatic/platformatic-group-session.js';
import { kafkaBrokers, testPrefix } from '../support/broker/kafka.js';

const BROKER = 4;
const GROUP = 32;
const SET = 0;
const DELETE = 1;
const KEY = 'consumer.session.timeout.ms';

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
});
