/**
 * The pool listing a lock-free start reads before choosing a group (KafkaAdminPort.occupiedGroups),
 * on the real broker, through each adapter (kafkajs classic; @platformatic/kafka classic and
 * KIP-848): a group with a live member is listed, and once its engine stopped it is not (the
 * engine deletes the group it left; kafkajs's listing, which has no group state, would still list
 * an empty one). The listing
 * is only a hint for the choice; exclusivity is proven by the join (see faults-concurrent-starts).
 */
import { resolveBroadcastOptions } from '../../libs/broadcast/src/core/options/broadcast-options.resolver.js';
import { loadKafkaPort } from '../../libs/broadcast/src/engine/kafka-client.loader.js';
import type { KafkaPort } from '../../libs/broadcast/src/interfaces/kafka-port.interface.js';
import { useEngineHarness } from '../support/engine/engine.js';
import { kafkaBrokers, waitFor } from '../support/broker/kafka.js';
import {
  type BroadcastKafkaClient,
  clientScoped,
  kafkaClients,
} from '../support/broker/kafka-clients.js';

const TOPIC = 'news';
const silent = { log: () => undefined, warn: () => undefined, error: () => undefined };

type Row = { client: BroadcastKafkaClient; groupProtocol: 'classic' | 'consumer' };
const rows = kafkaClients().flatMap((client): Row[] =>
  client === 'kafkajs'
    ? [{ client, groupProtocol: 'classic' }]
    : [
        { client, groupProtocol: 'classic' },
        { client, groupProtocol: 'consumer' },
      ],
);

describe.each(rows)('pool listing, $client $groupProtocol', ({ client, groupProtocol }) => {
  let port: KafkaPort | undefined;

  afterEach(async () => {
    await port?.disconnect();
    port = undefined;
  });

  it('lists the group of a running lock-free engine, and not once its member left', async () => {
    const h = useEngineHarness(
      clientScoped(`pool-listing-${groupProtocol}`, client),
      undefined,
      client,
    );
    await h.createTopics([{ topic: TOPIC }]);
    const kafka = client === 'platformatic' ? { groupProtocol } : {};
    const e = await h.start({ lock: 'none', topics: [TOPIC], kafka });
    const groupId = e.status().groupId!;
    const options = resolveBroadcastOptions({
      kafka: { brokers: kafkaBrokers(), client, ...kafka },
      topicPrefix: h.prefix,
      lock: false,
    });
    port = await loadKafkaPort(options, silent);
    const listed = async () =>
      (await port!.admin.occupiedGroups(h.prefix)).filter((g) => g.startsWith(h.prefix));

    expect(await listed()).toEqual([groupId]);

    await h.stopEngine(e);
    await waitFor(async () => (await listed()).length === 0, {
      timeoutMs: 20_000,
      message: `${groupId} still listed with members after its engine stopped`,
    });
  });
});
