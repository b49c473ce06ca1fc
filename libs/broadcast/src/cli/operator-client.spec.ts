import type { BroadcastKafkaClient } from '../interfaces/broadcast-kafka-options.interface.js';
import type { OperatorKafkaPort } from '../interfaces/broadcast-operator.interface.js';
import { loadOperatorPort, type OperatorImport } from './operator-client.js';

/** The error Node throws when a client package cannot be resolved. */
function notFound(pkg: string): Error {
  return Object.assign(new Error(`Cannot find package '${pkg}' imported from /cli/x.js`), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
}

/** The loader over fake operator ports, each either "installed" or failing as Node does. */
function load(installed: Record<BroadcastKafkaClient, boolean>, client?: BroadcastKafkaClient) {
  const fake =
    (name: BroadcastKafkaClient, pkg: string): OperatorImport =>
    async (kafka) => {
      if (!installed[name]) throw notFound(pkg);
      return { name, kafka } as unknown as OperatorKafkaPort;
    };
  return loadOperatorPort(
    { brokers: ['a:1'], ...(client && { client }) },
    {
      kafkajs: fake('kafkajs', 'kafkajs'),
      platformatic: fake('platformatic', '@platformatic/kafka'),
      confluent: fake('confluent', '@confluentinc/kafka-javascript'),
    },
  );
}

describe('loadOperatorPort: which client the CLI uses', () => {
  it('picks @platformatic/kafka when both are installed, --client picks kafkajs, and without platformatic kafkajs', async () => {
    expect(await load({ kafkajs: true, platformatic: true, confluent: false })).toMatchObject({
      name: 'platformatic',
    });
    expect(
      await load({ kafkajs: true, platformatic: true, confluent: false }, 'kafkajs'),
    ).toMatchObject({
      name: 'kafkajs',
      kafka: { client: 'kafkajs', clientId: 'nestjs-kafka-broadcast-cli' },
    });
    expect(await load({ kafkajs: true, platformatic: false, confluent: false })).toMatchObject({
      name: 'kafkajs',
    });
  });

  it('picks @confluentinc/kafka-javascript before kafkajs, after @platformatic/kafka', async () => {
    expect(await load({ kafkajs: true, platformatic: false, confluent: true })).toMatchObject({
      name: 'confluent',
    });
    expect(await load({ kafkajs: true, platformatic: true, confluent: true })).toMatchObject({
      name: 'platformatic',
    });
  });

  it('names both packages when neither is installed, and the chosen one when it is missing', async () => {
    await expect(load({ kafkajs: false, platformatic: false, confluent: false })).rejects.toThrow(
      'no Kafka client is installed: npm install @platformatic/kafka, npm install @confluentinc/kafka-javascript or npm install kafkajs (--client or KAFKA_CLIENT chooses when several are)',
    );
    await expect(
      load({ kafkajs: false, platformatic: true, confluent: false }, 'kafkajs'),
    ).rejects.toThrow(
      "--client kafkajs (or KAFKA_CLIENT) needs the 'kafkajs' package: npm install kafkajs",
    );
  });

  it('rethrows any other failure of the import', async () => {
    const broken: OperatorImport = async () => {
      throw new SyntaxError('Unexpected token');
    };
    const ok: OperatorImport = async () => ({}) as OperatorKafkaPort;
    await expect(
      loadOperatorPort({ brokers: ['a:1'] }, { kafkajs: ok, platformatic: broken, confluent: ok }),
    ).rejects.toThrow(SyntaxError);
  });
});
